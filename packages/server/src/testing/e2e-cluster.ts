/**
 * The set-up the controllers' end-to-end suites share: the sandbox API server with Kyverno's CRDs
 * (and the suite's own), a client and the real kubectl on its kubeconfig, the admission controller as a
 * replica process and, when asked, the background controller (and its restarts or standbys) and the
 * cleanup controller; waiting for the webhook configurations the admission controller registers; and
 * stopping it all in the right order. With `inProcess`, the admission controller (and the reports
 * controller) run in the test's own process instead (`in-process-controllers.ts`), behind the same
 * interface.
 */
import type { KubeObject } from "@kyverno-ts/api";
import { createKubeClient, type KubeClient } from "@kyverno-ts/kube";
import { type Sandbox, type SandboxOptions, startSandbox } from "@kyverno-ts/sandbox";
import { kubectlFor } from "@kyverno-ts/testing";
import { type Logger, silentLogger } from "../logger.js";
import { type BackgroundProcess, startBackground } from "./background.js";
import { type CleanupCommand, startCleanupCommand } from "./cleanup-command.js";
import { KYVERNO_CRDS, read, until } from "./cluster.js";
import {
  type InProcessControllers,
  inProcessWebhookRoute,
  type RunningInProcess,
  startInProcessControllers,
} from "./in-process-controllers.js";
import { type Replica, startReplica } from "./replicas.js";

/** Leader election timings that let a standby take over within seconds. */
export const FAST_LEADER_TIMINGS = { leaseDurationMs: 2000, renewDeadlineMs: 1500, retryPeriodMs: 300 };

/** How a background controller process starts; see `E2eCluster.startBackground`. */
export interface E2eBackgroundOptions {
  /** Its extra flags. */
  args?: string[];
  /** Its kubeconfig (default: the sandbox's, as an administrator). */
  kubeconfig?: string;
  /** Its leader election identity (default `kyverno-background-0`). */
  identity?: string;
  /** `false`: the controller's own leader election timings instead of `FAST_LEADER_TIMINGS`. */
  fastLeaderElection?: boolean;
}

/** Options of `startE2eCluster`. */
export interface E2eClusterOptions {
  /** CRD files beside Kyverno's own (ClusterPolicy, Policy, PolicyException, ephemeral reports). */
  crds?: readonly string[];
  /** `false`: only the suite's `crds`, without Kyverno's own. */
  kyvernoCrds?: boolean;
  /** More sandbox options. */
  sandbox?: Omit<SandboxOptions, "crds">;
  /** Namespaces created before the controllers start. */
  namespaces?: readonly string[];
  /** Objects created before the controllers start (after the namespaces). */
  objects?: readonly KubeObject[];
  /** YAML documents applied with kubectl before the controllers start (after the objects). */
  manifests?: readonly string[];
  /** The admission controller's extra flags (it always gets `--serverIP 127.0.0.1`); `false`: none. */
  admission?: { args?: string[] } | false;
  /**
   * Run the admission controller (and the reports controller, when asked) in this process instead of
   * as a replica process: the sandbox calls its webhooks through the Service resolver. Not together
   * with `admission`.
   */
  inProcess?: InProcessControllers;
  /** Start the background controller (fast leader election unless said otherwise). */
  background?: E2eBackgroundOptions | boolean;
  /** Run the cleanup controller in this process (after the admission and background controllers). */
  cleanup?: { logger?: Logger } | boolean;
}

/** A running suite cluster; see `startE2eCluster`. */
export interface E2eCluster {
  readonly sandbox: Sandbox;
  readonly client: KubeClient;
  readonly kubectl: ReturnType<typeof kubectlFor>;
  /** The admission controller process (undefined with `admission: false` or `inProcess`). */
  readonly replica: Replica | undefined;
  /** The admission and reports controllers running in this process, with `inProcess`. */
  readonly inProcess: RunningInProcess | undefined;
  /** The background controller started with the cluster, when asked for. */
  readonly background: BackgroundProcess | undefined;
  /** The in-process cleanup controller, when asked for. */
  readonly cleanup: CleanupCommand | undefined;
  /**
   * Starts another background controller process (a restart after a stop or a kill, a standby); `stop`
   * stops it too and `logs` shows the latest one's output.
   */
  startBackground(options?: E2eBackgroundOptions): Promise<BackgroundProcess>;
  /** Reads an object; undefined when it does not exist. */
  get(
    kind: string,
    namespace: string | undefined,
    name: string,
    apiVersion?: string,
  ): Promise<KubeObject | undefined>;
  /**
   * Waits until the Validating- or MutatingWebhookConfiguration `name` exists and its webhooks (as
   * JSON) contain every one of `needles`.
   */
  webhooks(
    kind: "ValidatingWebhookConfiguration" | "MutatingWebhookConfiguration",
    name: string,
    needles?: readonly string[],
    ms?: number,
  ): Promise<void>;
  /** The controllers' recent output, for failure messages. */
  logs(): string;
  /** Stops the controllers (the latest started first), then the client and the sandbox. */
  stop(): Promise<void>;
}

/** Starts the sandbox and the controllers a suite needs; resolves once they serve. */
export async function startE2eCluster(options: E2eClusterOptions = {}): Promise<E2eCluster> {
  if (options.inProcess !== undefined && options.admission !== undefined)
    throw new Error("startE2eCluster: `admission` (a replica process) and `inProcess` exclude each other");
  const route = options.inProcess === undefined ? undefined : inProcessWebhookRoute();
  const sandbox = await startSandbox({
    ...(route ? { resolveService: route.resolveService } : {}),
    ...options.sandbox,
    crds: [...(options.kyvernoCrds === false ? [] : KYVERNO_CRDS), ...(options.crds ?? [])],
  });
  const client = createKubeClient({ kubeconfigPath: sandbox.kubeconfigPath, qps: 0 });
  const kubectl = kubectlFor(sandbox.kubeconfigPath);
  for (const name of options.namespaces ?? [])
    await client.create({ apiVersion: "v1", kind: "Namespace", metadata: { name } });
  for (const object of options.objects ?? []) await client.create(object);
  for (const manifest of options.manifests ?? []) {
    const applied = await kubectl(["apply", "-f", "-"], manifest);
    if (applied.code !== 0) throw new Error(`kubectl apply of a manifest failed: ${applied.stderr}`);
  }
  const inProcess =
    options.inProcess === undefined || route === undefined
      ? undefined
      : await startInProcessControllers(sandbox.kubeconfigPath, client, route, options.inProcess);
  const admission =
    options.admission === false || inProcess !== undefined ? undefined : (options.admission ?? {});
  const replica =
    admission === undefined
      ? undefined
      : await startReplica({
          kubeconfig: sandbox.kubeconfigPath,
          identity: "kyverno-admission-0",
          args: ["--serverIP", "127.0.0.1", ...(admission.args ?? [])],
          startTimeoutMs: 120_000,
        });
  const backgrounds: BackgroundProcess[] = [];
  const startAnotherBackground = async (how: E2eBackgroundOptions = {}) => {
    const started = await startBackground({
      kubeconfig: how.kubeconfig ?? sandbox.kubeconfigPath,
      identity: how.identity ?? "kyverno-background-0",
      ...(how.fastLeaderElection === false ? {} : { leaderTimings: FAST_LEADER_TIMINGS }),
      ...(how.args ? { args: how.args } : {}),
    });
    backgrounds.push(started);
    return started;
  };
  const backgroundOptions = options.background === true ? {} : options.background || undefined;
  const background =
    backgroundOptions === undefined ? undefined : await startAnotherBackground(backgroundOptions);
  const cleanupOptions = options.cleanup === true ? {} : options.cleanup || undefined;
  const cleanup =
    cleanupOptions === undefined
      ? undefined
      : await startCleanupCommand({
          kubeconfig: sandbox.kubeconfigPath,
          logger: cleanupOptions.logger ?? silentLogger(),
        });
  return {
    sandbox,
    client,
    kubectl,
    replica,
    inProcess,
    background,
    cleanup,
    startBackground: startAnotherBackground,
    get: (kind, namespace, name, apiVersion = "v1") =>
      read(client, { apiVersion, kind, name, ...(namespace !== undefined ? { namespace } : {}) }),
    async webhooks(kind, name, needles = [], ms = 20_000) {
      await until(
        async () => {
          const config = await read(client, { apiVersion: "admissionregistration.k8s.io/v1", kind, name });
          if (config === undefined) return false;
          const hooks = JSON.stringify(config.webhooks ?? []);
          return needles.every((n) => hooks.includes(n));
        },
        ms,
        `${kind} ${name}${needles.length > 0 ? ` with ${needles.join(", ")}` : ""}`,
      );
    },
    logs: () =>
      [
        replica ? `\n--- admission ---\n${replica.output().slice(-3000)}` : "",
        inProcess ? `\n--- admission (in process) ---\n${inProcess.logs()}` : "",
        backgrounds.length > 0
          ? `\n--- background ---\n${backgrounds[backgrounds.length - 1]?.output().slice(-3000)}`
          : "",
      ].join(""),
    async stop() {
      await cleanup?.stop();
      for (const started of [...backgrounds].reverse()) await started.stop();
      await replica?.stop();
      await inProcess?.stop();
      client.close();
      await sandbox.stop();
    },
  };
}
