/**
 * The Pods this node runs, one `PodWorker` each: a reconcile pass hands over every Pod it listed
 * (`sync`), and the set starts workers for new Pods bound to the node, retires those being deleted
 * (deleting the object once stopped) or gone, and keeps the output of finished containers.
 */
import type { KubeClient } from "@kyverno-ts/kube";
import type { ContainerLog } from "./container-log.js";
import type { Pod } from "./pod-types.js";
import { type PodWorker, type PodWorkerDeps, startPodWorker } from "./pod-worker.js";

/** Options of `createPodSet`. */
export interface PodSetOptions {
  nodeName: string;
  /** What every worker shares (the client and state folder exist once the kubelet started). */
  workerDeps: () => PodWorkerDeps;
  /** Receives failures to stop a Pod. */
  report: (message: string) => void;
}

/** The node's Pods; see `createPodSet`. */
export interface PodSet {
  /** Starts, retires and finalizes workers after the Pods a pass listed. */
  sync(pods: readonly Pod[]): void;
  /** The workers running now. */
  workers(): PodWorker[];
  /** Output of every container so far, of running and finished Pods. */
  logs(): ContainerLog[];
  /** Stops every Pod, each within its grace period capped at `capSeconds`; Pod objects stay. */
  stopAll(capSeconds: number): Promise<void>;
}

/** Deletes a Pod object at once (a Pod being deleted that this kubelet does not run). */
function deleteNow(client: KubeClient, pod: Pod): void {
  void client.delete(
    { apiVersion: "v1", kind: "Pod", namespace: pod.metadata.namespace ?? "", name: pod.metadata.name },
    { gracePeriodSeconds: 0 },
  );
}

const finished = (pod: Pod): boolean => pod.status?.phase === "Succeeded" || pod.status?.phase === "Failed";

/** Creates an empty set. */
export function createPodSet(options: PodSetOptions): PodSet {
  const workers = new Map<string, PodWorker>();
  const finishedLogs: ContainerLog[] = [];

  const retire = async (worker: PodWorker, graceSeconds: number, finalize: boolean): Promise<void> => {
    try {
      await worker.terminate(graceSeconds, finalize);
    } catch (e) {
      options.report(
        `stopping pod ${worker.namespace}/${worker.name}: ${e instanceof Error ? e.message : String(e)}`,
      );
    }
    workers.delete(worker.uid);
    finishedLogs.push(...worker.logs());
  };

  /** One Pod of the node: deleted, new, or already run. */
  const syncPod = (pod: Pod): void => {
    const uid = pod.metadata.uid ?? "";
    const worker = workers.get(uid);
    if (pod.metadata.deletionTimestamp !== undefined) {
      if (worker === undefined) deleteNow(options.workerDeps().client, pod);
      else if (!worker.terminating())
        void retire(worker, pod.metadata.deletionGracePeriodSeconds ?? 30, true);
      return;
    }
    if (worker === undefined && !finished(pod)) workers.set(uid, startPodWorker(pod, options.workerDeps()));
  };

  return {
    sync(pods) {
      const seen = new Set<string>();
      for (const pod of pods) {
        if (pod.spec.nodeName !== options.nodeName) continue;
        seen.add(pod.metadata.uid ?? "");
        syncPod(pod);
      }
      for (const [uid, worker] of workers)
        if (!seen.has(uid) && !worker.terminating())
          void retire(worker, worker.pod.spec.terminationGracePeriodSeconds ?? 30, false);
    },
    workers: () => [...workers.values()],
    logs: () => [...finishedLogs, ...[...workers.values()].flatMap((w) => w.logs())],
    async stopAll(capSeconds) {
      await Promise.all(
        [...workers.values()].map((w) =>
          retire(w, Math.min(capSeconds, w.pod.spec.terminationGracePeriodSeconds ?? 30), false),
        ),
      );
    },
  };
}
