/**
 * The kubelet's one serialized reconcile pass (Deployments → ReplicaSets → Jobs → this node's Pods →
 * Endpoints), run after informer events, on a timer and on demand: requests during a pass run one
 * more pass after it, never two at once.
 */
import type { KubeClient } from "@kyverno-ts/kube";
import type { Pod } from "../pods/pod-types.js";
import { reconcileDeployment } from "./deployments.js";
import { reconcileEndpoints } from "./endpoints.js";
import { reconcileJob } from "./jobs.js";
import type { Deployment, Job, ReplicaSet, Service } from "./objects.js";
import { reconcileReplicaSet } from "./replicasets.js";

/** What one pass does with the Pods and Services it listed. */
export interface ReconcileTargets {
  nodeName: string;
  syncPods(pods: Pod[]): void;
  setServices(services: Service[]): void;
}

async function listAll<T>(client: KubeClient, apiVersion: string, kind: string): Promise<T[]> {
  const result = await client.list({ apiVersion, kind });
  if (!result.ok) throw new Error(`list ${kind}: ${result.message}`);
  return result.value.items as unknown as T[];
}

/** One pass over everything, from fresh lists. */
export async function reconcileCluster(client: KubeClient, targets: ReconcileTargets): Promise<void> {
  const { nodeName } = targets;
  const [deployments, sets, jobs, pods, services] = await Promise.all([
    listAll<Deployment>(client, "apps/v1", "Deployment"),
    listAll<ReplicaSet>(client, "apps/v1", "ReplicaSet"),
    listAll<Job>(client, "batch/v1", "Job"),
    listAll<Pod>(client, "v1", "Pod"),
    listAll<Service>(client, "v1", "Service"),
  ]);
  for (const d of deployments)
    if (d.metadata.deletionTimestamp === undefined) await reconcileDeployment(client, d, sets, pods);
  for (const rs of sets)
    if (rs.metadata.deletionTimestamp === undefined) await reconcileReplicaSet(client, rs, pods, nodeName);
  for (const job of jobs)
    if (job.metadata.deletionTimestamp === undefined) await reconcileJob(client, job, pods, nodeName);
  targets.syncPods(pods);
  targets.setServices(services);
  await reconcileEndpoints(client, services, pods);
}

/** The pass scheduler; see `createReconcileLoop`. */
export interface ReconcileLoop {
  /** Runs a pass soon (or one more after the running one). */
  schedule(): void;
  /** Resolves once a pass has run after the call. */
  synced(): Promise<void>;
  /** No pass starts from now on. */
  stop(): void;
}

/** Creates the loop around `run` (one pass); its failures go to `report`. */
export function createReconcileLoop(options: {
  run: () => Promise<void>;
  report: (message: string) => void;
}): ReconcileLoop {
  let scheduled = false;
  let running = false;
  let again = false;
  let stopped = false;
  let waiters: Array<() => void> = [];

  const schedule = (): void => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    if (scheduled) return;
    scheduled = true;
    setTimeout(() => void pass(), 20);
  };

  const pass = async (): Promise<void> => {
    scheduled = false;
    if (stopped) return;
    running = true;
    const settled = waiters;
    waiters = [];
    try {
      await options.run();
    } catch (e) {
      options.report(`reconcile: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      running = false;
      for (const w of settled) w();
      if (again) {
        again = false;
        schedule();
      }
    }
  };

  return {
    schedule,
    synced: () =>
      new Promise((resolve) => {
        waiters.push(resolve);
        schedule();
      }),
    stop() {
      stopped = true;
    },
  };
}
