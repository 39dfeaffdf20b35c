/**
 * The composition root of the test kubelet: an admin client, informers that trigger one serialized
 * reconcile pass (Deployments → ReplicaSets → Jobs → this node's Pods → Endpoints), the Pod workers,
 * and what the sandbox and tests ask of it (`resolveService`, `podLogs`, `logs`).
 */
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInformer, createKubeClient, type Informer, type KubeClient } from "@kyverno-ts/kube";
import type { ApiServerAccess } from "./api/token-request.js";
import { reconcileDeployment } from "./controllers/deployments.js";
import { reconcileEndpoints } from "./controllers/endpoints.js";
import { reconcileJob } from "./controllers/jobs.js";
import { type Deployment, type Job, matches, type ReplicaSet, type Service } from "./controllers/objects.js";
import { reconcileReplicaSet } from "./controllers/replicasets.js";
import { ownerAlive, type PodNetwork } from "./network/pod-network.js";
import type { ContainerLog } from "./pods/container-log.js";
import type { Pod } from "./pods/pod-types.js";
import { type PodWorker, startPodWorker } from "./pods/pod-worker.js";
import { resolvePort } from "./pods/probes.js";
import { createPodmanRuntime, removeLeftoverContainers } from "./runtime/podman-runtime.js";
import { createProcessRuntime } from "./runtime/process-runtime.js";
import type { ContainerRuntime } from "./runtime/types.js";

/** Options of `createKubelet`. */
export interface KubeletOptions {
  /** The API server as Pods reach it (an address on the Pod network), its CA and an admin token. */
  apiServer: ApiServerAccess;
  network: PodNetwork;
  /** The repository root: its built CLI is the `kyverno-ts` image's entrypoint in process mode. */
  repoRoot: string;
  /** `process` (default): containers as local processes; `podman`: `kyverno-ts` from the built image. */
  mode?: "process" | "podman";
  /** The image and podman environment of podman mode. */
  podman?: { image: string; env: NodeJS.ProcessEnv };
  /** The kubectl binary behind `kubectl` images (default `/usr/bin/kubectl`). */
  kubectl?: string;
  /** The Node.js binary (default: this process's). */
  node?: string;
  /** `spec.nodeName` of the Pods this kubelet creates and runs (default `kubelet-<runId>`). */
  nodeName?: string;
  /** Most seconds a Pod gets to stop when the kubelet stops (default 10). */
  shutdownGracePeriodSeconds?: number;
  /** First restart back-off (default 10000 ms). */
  backoffBaseMs?: number;
  /** Receives the kubelet's own errors (default: ignored). */
  onError?: (message: string) => void;
}

/** A container's captured output. */
export interface CapturedLog {
  namespace: string;
  pod: string;
  container: string;
  text: string;
}

/** The running kubelet; create with `createKubelet`. */
export interface Kubelet {
  readonly nodeName: string;
  start(): Promise<void>;
  /** Stops every Pod (within `shutdownGracePeriodSeconds`) and the controllers; Pod objects stay. */
  stop(): Promise<void>;
  /** A base URL (`https://<pod IP>:<target port>`) of a ready Pod behind a Service port; throws when there is none. */
  resolveService(namespace: string, name: string, port: number): string;
  /** The address of a ready Pod behind a Service port, or `undefined`. */
  serviceAddress(namespace: string, name: string, port: number): { host: string; port: number } | undefined;
  /** A container's output for `pods/log` (the sandbox's `podLogs` option). */
  podLogs(request: {
    namespace: string;
    pod: string;
    container: string;
    previous: boolean;
  }): string | undefined;
  /** Every container's output so far, of running and finished Pods. */
  logs(): CapturedLog[];
  /** Resolves once a reconcile pass has run after the call. */
  synced(): Promise<void>;
}

function kubeconfigOf(access: ApiServerAccess): string {
  return JSON.stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [
      {
        name: "c",
        cluster: {
          server: access.url,
          "certificate-authority-data": Buffer.from(access.caCertPem).toString("base64"),
        },
      },
    ],
    users: [{ name: "u", user: { token: access.token } }],
    contexts: [{ name: "c", context: { cluster: "c", user: "u" } }],
    "current-context": "c",
  });
}

/** Creates the kubelet (nothing runs until `start()`). */
export function createKubelet(options: KubeletOptions): Kubelet {
  const nodeName = options.nodeName ?? `kubelet-${options.network.runId}`;
  const apiUrl = new URL(options.apiServer.url);
  const apiServer = { host: apiUrl.hostname.replace(/^\[|\]$/g, ""), port: Number(apiUrl.port || 443) };
  const images = {
    node: options.node ?? process.execPath,
    repoRoot: options.repoRoot,
    kubectl: options.kubectl ?? "/usr/bin/kubectl",
  };
  let processRuntime: ContainerRuntime | undefined;
  let podmanRuntime: ContainerRuntime | undefined;
  const workers = new Map<string, PodWorker>();
  const finishedLogs: ContainerLog[] = [];
  let services: Service[] = [];
  let client: KubeClient | undefined;
  let stateDir = "";
  const informers: Informer<unknown>[] = [];
  let timer: NodeJS.Timeout | undefined;
  let scheduled = false;
  let running = false;
  let again = false;
  let stopped = false;
  let waiters: Array<() => void> = [];
  const rotation = new Map<string, number>();
  const report = (message: string): void => options.onError?.(message);

  const runtimeFor = (kind: "kyverno-ts" | "kubectl"): ContainerRuntime => {
    if (processRuntime === undefined) throw new Error("the kubelet is not started");
    if (options.mode !== "podman" || kind === "kubectl") return processRuntime;
    if (podmanRuntime === undefined) {
      if (options.podman === undefined)
        throw new Error("podman mode needs the podman option (image and environment)");
      podmanRuntime = createPodmanRuntime({
        ...options.podman,
        namePrefix: `kubelet-${options.network.runId}`,
      });
    }
    return podmanRuntime;
  };

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

  const syncPods = (pods: Pod[]): void => {
    const c = client as KubeClient;
    const seen = new Set<string>();
    for (const pod of pods) {
      if (pod.spec.nodeName !== nodeName) continue;
      const uid = pod.metadata.uid ?? "";
      seen.add(uid);
      const worker = workers.get(uid);
      if (pod.metadata.deletionTimestamp !== undefined) {
        if (worker === undefined) {
          void c.delete(
            {
              apiVersion: "v1",
              kind: "Pod",
              namespace: pod.metadata.namespace ?? "",
              name: pod.metadata.name,
            },
            { gracePeriodSeconds: 0 },
          );
        } else if (!worker.terminating())
          void retire(worker, pod.metadata.deletionGracePeriodSeconds ?? 30, true);
        continue;
      }
      const phase = pod.status?.phase;
      if (worker === undefined && phase !== "Succeeded" && phase !== "Failed")
        workers.set(
          uid,
          startPodWorker(pod, {
            client: c,
            access: options.apiServer,
            network: options.network,
            runtimeFor,
            images,
            apiServer,
            stateDir,
            onChange: schedule,
            ...(options.backoffBaseMs === undefined ? {} : { backoffBaseMs: options.backoffBaseMs }),
          }),
        );
    }
    for (const [uid, worker] of workers)
      if (!seen.has(uid) && !worker.terminating())
        void retire(worker, worker.pod.spec.terminationGracePeriodSeconds ?? 30, false);
  };

  const retire = async (worker: PodWorker, graceSeconds: number, finalize: boolean): Promise<void> => {
    try {
      await worker.terminate(graceSeconds, finalize);
    } catch (e) {
      report(
        `stopping pod ${worker.namespace}/${worker.name}: ${e instanceof Error ? e.message : String(e)}`,
      );
    }
    workers.delete(worker.uid);
    finishedLogs.push(...worker.logs());
  };

  const listAll = async <T>(apiVersion: string, kind: string): Promise<T[]> => {
    const result = await (client as KubeClient).list({ apiVersion, kind });
    if (!result.ok) throw new Error(`list ${kind}: ${result.message}`);
    return result.value.items as unknown as T[];
  };

  const reconcileAll = async (): Promise<void> => {
    const c = client as KubeClient;
    const [deployments, sets, jobs, pods, svcs] = await Promise.all([
      listAll<Deployment>("apps/v1", "Deployment"),
      listAll<ReplicaSet>("apps/v1", "ReplicaSet"),
      listAll<Job>("batch/v1", "Job"),
      listAll<Pod>("v1", "Pod"),
      listAll<Service>("v1", "Service"),
    ]);
    for (const d of deployments)
      if (d.metadata.deletionTimestamp === undefined) await reconcileDeployment(c, d, sets, pods);
    for (const rs of sets)
      if (rs.metadata.deletionTimestamp === undefined) await reconcileReplicaSet(c, rs, pods, nodeName);
    for (const job of jobs)
      if (job.metadata.deletionTimestamp === undefined) await reconcileJob(c, job, pods, nodeName);
    syncPods(pods);
    services = svcs;
    await reconcileEndpoints(c, svcs, pods);
  };

  const pass = async (): Promise<void> => {
    scheduled = false;
    if (stopped) return;
    running = true;
    const settled = waiters;
    waiters = [];
    try {
      await reconcileAll();
    } catch (e) {
      report(`reconcile: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      running = false;
      for (const w of settled) w();
      if (again) {
        again = false;
        schedule();
      }
    }
  };

  const pick = (
    namespace: string,
    name: string,
    port: number,
  ): { host: string; port: number } | undefined => {
    const service = services.find(
      (s) => s.metadata.name === name && (s.metadata.namespace ?? "default") === namespace,
    );
    const servicePort = service?.spec.ports?.find((p) => p.port === port);
    if (service?.spec.selector === undefined || servicePort === undefined) return undefined;
    const selector = { matchLabels: service.spec.selector };
    const ready = [...workers.values()].filter(
      (w) =>
        w.namespace === namespace &&
        w.ready() &&
        !w.terminating() &&
        w.podIP() !== undefined &&
        matches(selector, w.pod.metadata.labels),
    );
    if (ready.length === 0) return undefined;
    const key = `${namespace}/${name}`;
    const turn = rotation.get(key) ?? 0;
    rotation.set(key, turn + 1);
    const worker = ready[turn % ready.length] as PodWorker;
    const target = servicePort.targetPort ?? port;
    const resolved = worker.pod.spec.containers
      .map((c) => resolvePort(c, target))
      .find((p) => p !== undefined);
    return { host: worker.podIP() as string, port: resolved ?? (typeof target === "number" ? target : port) };
  };

  const allLogs = (): ContainerLog[] => [...finishedLogs, ...[...workers.values()].flatMap((w) => w.logs())];

  return {
    nodeName,
    async start() {
      if (options.mode === "podman" && options.podman !== undefined)
        await removeLeftoverContainers(options.podman.env, ownerAlive);
      // The Node.js binary may live outside the repository (a system Node.js): its folder is bound too.
      processRuntime = createProcessRuntime({
        hostDirs: [options.repoRoot, dirname(realpathSync(images.node))],
      });
      stateDir = mkdtempSync(join(tmpdir(), `kubelet-${options.network.runId}-`));
      client = createKubeClient({
        kubeconfig: kubeconfigOf(options.apiServer),
        qps: 0,
        userAgent: "kubelet/v1.32 (test)",
      });
      for (const [apiVersion, kind] of [
        ["apps/v1", "Deployment"],
        ["apps/v1", "ReplicaSet"],
        ["batch/v1", "Job"],
        ["v1", "Pod"],
        ["v1", "Service"],
      ] as const) {
        const informer = createInformer<{ metadata?: { name?: string } }>({ client, apiVersion, kind });
        informer.on("add", schedule);
        informer.on("update", schedule);
        informer.on("delete", schedule);
        informers.push(informer as Informer<unknown>);
      }
      await Promise.all(informers.map((i) => i.start()));
      timer = setInterval(schedule, 1000);
      schedule();
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      await Promise.all(informers.map((i) => i.stop()));
      const cap = options.shutdownGracePeriodSeconds ?? 10;
      await Promise.all(
        [...workers.values()].map((w) =>
          retire(w, Math.min(cap, w.pod.spec.terminationGracePeriodSeconds ?? 30), false),
        ),
      );
      client?.close();
      if (stateDir !== "") rmSync(stateDir, { recursive: true, force: true });
    },
    resolveService(namespace, name, port) {
      const address = pick(namespace, name, port);
      if (address === undefined) throw new Error(`no endpoints available for service "${name}"`);
      return `https://${address.host}:${address.port}`;
    },
    serviceAddress: pick,
    podLogs(request) {
      const log = allLogs().findLast(
        (l) =>
          l.namespace === request.namespace && l.pod === request.pod && l.container === request.container,
      );
      if (log === undefined) return undefined;
      return request.previous ? log.previous() : log.current();
    },
    logs: () =>
      allLogs().map((l) => ({ namespace: l.namespace, pod: l.pod, container: l.container, text: l.all() })),
    synced() {
      return new Promise((resolve) => {
        waiters.push(resolve);
        schedule();
      });
    },
  };
}
