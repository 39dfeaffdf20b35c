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
import { createReconcileLoop, reconcileCluster } from "./controllers/reconcile-loop.js";
import { ownerAlive, type PodNetwork } from "./network/pod-network.js";
import { createServiceRouter } from "./network/service-router.js";
import type { ContainerLog } from "./pods/container-log.js";
import { createPodSet } from "./pods/pod-set.js";
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

/** Picks a container's runtime by its image's kind; see `createRuntimes`. */
interface Runtimes {
  /** Creates the process runtime (binding the repository and the Node.js binary's folder). */
  start(): Promise<void>;
  runtimeFor(kind: "kyverno-ts" | "kubectl"): ContainerRuntime;
}

/** Processes for `kubectl` images and (in process mode) `kyverno-ts`; podman for `kyverno-ts` in podman mode. */
function createRuntimes(options: KubeletOptions, nodeBinary: string): Runtimes {
  let processRuntime: ContainerRuntime | undefined;
  let podmanRuntime: ContainerRuntime | undefined;
  return {
    async start() {
      if (options.mode === "podman" && options.podman !== undefined)
        await removeLeftoverContainers(options.podman.env, ownerAlive);
      // The Node.js binary may live outside the repository (a system Node.js): its folder is bound too.
      processRuntime = createProcessRuntime({
        hostDirs: [options.repoRoot, dirname(realpathSync(nodeBinary))],
      });
    },
    runtimeFor(kind) {
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
    },
  };
}

/** The kinds whose changes trigger a reconcile pass. */
const WATCHED = [
  ["apps/v1", "Deployment"],
  ["apps/v1", "ReplicaSet"],
  ["batch/v1", "Job"],
  ["v1", "Pod"],
  ["v1", "Service"],
] as const;

/** Informers over `WATCHED` that schedule a pass on every event. */
function watchWorkloads(client: KubeClient, schedule: () => void): Informer<unknown>[] {
  return WATCHED.map(([apiVersion, kind]) => {
    const informer = createInformer<{ metadata?: { name?: string } }>({ client, apiVersion, kind });
    informer.on("add", schedule);
    informer.on("update", schedule);
    informer.on("delete", schedule);
    return informer as Informer<unknown>;
  });
}

/** The API server's host and port as Pods reach it. */
function apiServerAddress(access: ApiServerAccess): { host: string; port: number } {
  const url = new URL(access.url);
  return { host: url.hostname.replace(/^\[|\]$/g, ""), port: Number(url.port || 443) };
}

/** The container output `pods/log` asks for, or undefined. */
function podLog(logs: ContainerLog[], request: Parameters<Kubelet["podLogs"]>[0]): string | undefined {
  const log = logs.findLast(
    (l) => l.namespace === request.namespace && l.pod === request.pod && l.container === request.container,
  );
  if (log === undefined) return undefined;
  return request.previous ? log.previous() : log.current();
}

/** Creates the kubelet (nothing runs until `start()`). */
export function createKubelet(options: KubeletOptions): Kubelet {
  const nodeName = options.nodeName ?? `kubelet-${options.network.runId}`;
  const images = {
    node: options.node ?? process.execPath,
    repoRoot: options.repoRoot,
    kubectl: options.kubectl ?? "/usr/bin/kubectl",
  };
  const apiServer = apiServerAddress(options.apiServer);
  const runtimes = createRuntimes(options, images.node);
  let client: KubeClient | undefined;
  let stateDir = "";
  let informers: Informer<unknown>[] = [];
  let timer: NodeJS.Timeout | undefined;
  const report = (message: string): void => options.onError?.(message);

  const loop = createReconcileLoop({
    run: () =>
      reconcileCluster(client as KubeClient, {
        nodeName,
        syncPods: pods.sync,
        setServices: router.setServices,
      }),
    report,
  });
  const pods = createPodSet({
    nodeName,
    report,
    workerDeps: () => ({
      client: client as KubeClient,
      access: options.apiServer,
      network: options.network,
      runtimeFor: runtimes.runtimeFor,
      images,
      apiServer,
      stateDir,
      onChange: loop.schedule,
      ...(options.backoffBaseMs === undefined ? {} : { backoffBaseMs: options.backoffBaseMs }),
    }),
  });
  const router = createServiceRouter(pods.workers);

  return {
    nodeName,
    async start() {
      await runtimes.start();
      stateDir = mkdtempSync(join(tmpdir(), `kubelet-${options.network.runId}-`));
      client = createKubeClient({
        kubeconfig: kubeconfigOf(options.apiServer),
        qps: 0,
        userAgent: "kubelet/v1.32 (test)",
      });
      informers = watchWorkloads(client, loop.schedule);
      await Promise.all(informers.map((i) => i.start()));
      timer = setInterval(loop.schedule, 1000);
      loop.schedule();
    },
    async stop() {
      loop.stop();
      clearInterval(timer);
      await Promise.all(informers.map((i) => i.stop()));
      await pods.stopAll(options.shutdownGracePeriodSeconds ?? 10);
      client?.close();
      if (stateDir !== "") rmSync(stateDir, { recursive: true, force: true });
    },
    resolveService(namespace, name, port) {
      const address = router.pick(namespace, name, port);
      if (address === undefined) throw new Error(`no endpoints available for service "${name}"`);
      return `https://${address.host}:${address.port}`;
    },
    serviceAddress: router.pick,
    podLogs: (request) => podLog(pods.logs(), request),
    logs: () =>
      pods.logs().map((l) => ({ namespace: l.namespace, pod: l.pod, container: l.container, text: l.all() })),
    synced: loop.synced,
  };
}
