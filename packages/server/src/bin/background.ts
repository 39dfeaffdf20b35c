/**
 * `kyverno-ts background`: the background controller against a cluster (kubeconfig or in-cluster):
 * UpdateRequests processed by `--genWorkers` workers while leading on the
 * `kyverno-background-controller` Lease; metrics and probes on `--metrics-port`. Flags are parsed
 * here, few and local (upstream's spellings).
 */
import { hostname } from "node:os";
import { parseArgs } from "node:util";
import { createEngine } from "@kyverno-ts/engine";
import { createKubeClient, type KubeClient } from "@kyverno-ts/kube";
import { pino } from "pino";
import { serverVersion } from "../admission-controller.js";
import { engineClock, type ServerClock, systemClock } from "../clock.js";
import { createBackgroundController } from "../controllers/background/background-controller.js";
import {
  type BackgroundMetrics,
  backgroundConfigProblems,
  createBackgroundMetrics,
} from "../controllers/background/metrics.js";
import type { Logger, LogLevel } from "../logger.js";
import { loadMetricsConfig } from "../metrics/configmap.js";
import { acceptedExceptionNamespaces, exceptionSettings } from "../policycache/exception-settings.js";
import { createMetricsServer } from "../webhooks/metrics-server.js";
import type { TextOutput } from "./admission.js";
import { stopSignal } from "./stop-signal.js";

/** What the command does, for `--help`. */
export const BACKGROUND_DESCRIPTION = `Runs Kyverno's background controller: generate and mutate-existing rules. The admission
controller turns admitted requests into UpdateRequests (kyverno.io/v2); this controller processes
them (retries with backoff, status Pending / Completed / Failed / Skip, completed ones deleted),
keeps synchronized generated resources in sync, and applies generateExisting /
mutateExistingOnPolicyUpdate rules when policies change. Replicas elect a leader on the Lease
kyverno-background-controller; only the leader works.`;

/** Usage text of the command. */
export const BACKGROUND_USAGE = `Usage: kyverno-ts background [flags]

${BACKGROUND_DESCRIPTION}

Options:
  --kubeconfig <file>              kubeconfig (default: KUBECONFIG, ~/.kube/config, then in-cluster)
  --genWorkers <n>                 UpdateRequests processed at once (default 10)
  --enablePolicyException          honour PolicyExceptions (default false)
  --exceptionNamespace <ns>        the only namespace PolicyExceptions are accepted from
  --metrics-port <n>               metrics and probes (/metrics, /health/liveness, /health/readiness), plain HTTP (default 8000; 0 picks one)
  --clientRateLimitQPS <n>         API requests per second (default 300)
  --clientRateLimitBurst <n>       API requests above the rate at once (default 300)
  --namespace <ns>                 Kyverno's namespace: UpdateRequests and the Lease (default: KYVERNO_NAMESPACE or kyverno)
  --serviceAccountName <name>      this controller's ServiceAccount, named in permission failures (default: KYVERNO_SERVICEACCOUNT_NAME or kyverno-background-controller)
  --metricsConfigMap <name>        metrics ConfigMap, read at start (default: METRICS_CONFIG or kyverno-metrics)
  --identity <name>                this replica's identity (default: POD_NAME or the host name)
  --log-level <level>              debug, info (default), warn, error or silent
`;

/** Parsed flags. */
export interface BackgroundArgs {
  kubeconfig: string | undefined;
  workers: number;
  exceptionNamespaces: readonly string[];
  metricsPort: number;
  qps: number;
  burst: number;
  namespace: string;
  serviceAccount: string;
  metricsConfigMapName: string;
  identity: string;
  logLevel: LogLevel;
  help: boolean;
}

const LEVELS: readonly string[] = ["debug", "info", "warn", "error", "silent"];

function whole(value: string | undefined, fallback: number, flag: string, min: number, max: number) {
  if (value === undefined) return fallback;
  const n = Number(value);
  return Number.isInteger(n) && n >= min && n <= max
    ? n
    : `${flag} must be a whole number from ${min} to ${max}, got "${value}"`;
}

/** Parses the arguments after `background`; `env` gives upstream's environment defaults. */
export function parseBackgroundArgs(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>> = process.env,
): { ok: true; args: BackgroundArgs } | { ok: false; message: string } {
  const args = argv.map((a) => (a === "--enablePolicyException=true" ? "--enablePolicyException" : a));
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({
      args: args.filter((a) => a !== "--enablePolicyException=false"),
      strict: true,
      allowPositionals: false,
      options: {
        kubeconfig: { type: "string" },
        genWorkers: { type: "string" },
        enablePolicyException: { type: "boolean" },
        exceptionNamespace: { type: "string" },
        "metrics-port": { type: "string" },
        metricsPort: { type: "string" },
        clientRateLimitQPS: { type: "string" },
        clientRateLimitBurst: { type: "string" },
        namespace: { type: "string" },
        serviceAccountName: { type: "string" },
        metricsConfigMap: { type: "string" },
        identity: { type: "string" },
        "log-level": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    }).values;
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
  const str = (k: string): string | undefined =>
    typeof values[k] === "string" ? (values[k] as string) : undefined;
  const numbers = {
    workers: whole(str("genWorkers"), 10, "--genWorkers", 1, 1000),
    metricsPort: whole(str("metrics-port") ?? str("metricsPort"), 8000, "--metrics-port", 0, 65535),
    qps: whole(str("clientRateLimitQPS"), 300, "--clientRateLimitQPS", 0, 1_000_000),
    burst: whole(str("clientRateLimitBurst"), 300, "--clientRateLimitBurst", 1, 1_000_000),
  };
  for (const n of Object.values(numbers)) if (typeof n === "string") return { ok: false, message: n };
  const logLevel = str("log-level") ?? "info";
  if (!LEVELS.includes(logLevel))
    return { ok: false, message: `--log-level must be one of ${LEVELS.join(", ")}` };
  const namespace = str("namespace") ?? env.KYVERNO_NAMESPACE ?? "kyverno";
  const serviceAccount =
    str("serviceAccountName") ?? env.KYVERNO_SERVICEACCOUNT_NAME ?? "kyverno-background-controller";
  return {
    ok: true,
    args: {
      kubeconfig: str("kubeconfig"),
      workers: numbers.workers as number,
      exceptionNamespaces: acceptedExceptionNamespaces(
        exceptionSettings(values.enablePolicyException === true, str("exceptionNamespace")),
      ),
      metricsPort: numbers.metricsPort as number,
      qps: numbers.qps as number,
      burst: numbers.burst as number,
      namespace,
      serviceAccount: `system:serviceaccount:${namespace}:${serviceAccount}`,
      metricsConfigMapName: str("metricsConfigMap") ?? env.METRICS_CONFIG ?? "kyverno-metrics",
      identity: str("identity") ?? env.POD_NAME ?? hostname(),
      logLevel: logLevel as LogLevel,
      help: values.help === true,
    },
  };
}

/** Options of `runBackgroundCommand`. */
export interface BackgroundCommandOptions {
  args: readonly string[];
  stdout: TextOutput;
  stderr: TextOutput;
  /** Stops the controller; when omitted, SIGINT and SIGTERM do. */
  signal?: AbortSignal;
  clock?: ServerClock;
  logger?: Logger;
  /** Leader election timings instead of upstream's 15 s / 10 s / 2 s (tests). */
  leaderTimings?: { leaseDurationMs: number; renewDeadlineMs: number; retryPeriodMs: number };
  /** Called once the informers have synced and metrics are served. */
  onReady?: (info: { metricsPort: number; isLeader: () => boolean }) => void;
}

/** Runs the controller until stopped; resolves with the exit status (0 clean stop, 1 failure, 2 bad flags). */
export async function runBackgroundCommand(options: BackgroundCommandOptions): Promise<number> {
  const { stdout, stderr } = options;
  const parsed = parseBackgroundArgs(options.args);
  if (!parsed.ok) {
    stderr.write(`error: ${parsed.message}\n\n${BACKGROUND_USAGE}`);
    return 2;
  }
  const args = parsed.args;
  if (args.help) {
    stdout.write(BACKGROUND_USAGE);
    return 0;
  }
  const clock = options.clock ?? systemClock();
  const stream = { write: (text: string) => void stderr.write(text) };
  const logger =
    options.logger ?? pino({ level: args.logLevel, base: { component: "background-controller" } }, stream);
  let metrics: BackgroundMetrics | undefined;
  let client: KubeClient;
  try {
    client = createKubeClient({
      ...(args.kubeconfig === undefined ? {} : { kubeconfigPath: args.kubeconfig }),
      qps: args.qps,
      burst: args.burst,
      clientType: "background-controller",
      onQuery: (e) => metrics?.clientQuery(e),
      clock,
    });
  } catch (error) {
    stderr.write(`error: cannot load the cluster configuration: ${(error as Error).message}\n`);
    return 1;
  }
  const metricsConfig = await loadMetricsConfig(client, args.namespace, args.metricsConfigMapName);
  const source = `ConfigMap ${args.namespace}/${args.metricsConfigMapName}`;
  for (const problem of [
    ...metricsConfig.problems,
    ...backgroundConfigProblems(metricsConfig.config, source),
  ])
    logger.warn({ problem }, "metrics configuration");
  metrics = createBackgroundMetrics({ version: serverVersion(), config: metricsConfig.config });
  const controller = createBackgroundController({
    client,
    engine: createEngine({ clock: engineClock(clock), exceptionNamespaces: args.exceptionNamespaces }),
    namespace: args.namespace,
    workers: args.workers,
    exceptionNamespaces: args.exceptionNamespaces,
    leaderElection: { identity: args.identity, ...(options.leaderTimings ?? {}) },
    user: args.serviceAccount,
    clock,
    logger,
    metrics,
  });
  let started = false;
  const server = createMetricsServer({ metrics, ready: () => started && controller.synced() });
  const stop = stopSignal(options.signal);
  try {
    const { port } = await server.listen({ port: args.metricsPort });
    await Promise.race([
      controller.start(),
      new Promise<void>((resolve) => stop.signal.addEventListener("abort", () => resolve(), { once: true })),
    ]);
    if (!stop.signal.aborted) {
      started = true;
      stdout.write(
        `kyverno-ts background: ${args.workers} workers on UpdateRequests in ${args.namespace}; ` +
          `metrics: http://0.0.0.0:${port}/metrics\n`,
      );
      options.onReady?.({ metricsPort: port, isLeader: () => controller.isLeader() });
      await new Promise<void>((resolve) => {
        if (stop.signal.aborted) resolve();
        else stop.signal.addEventListener("abort", () => resolve(), { once: true });
      });
    }
    return 0;
  } catch (error) {
    stderr.write(`error: ${(error as Error).message}\n`);
    return 1;
  } finally {
    stop.dispose();
    await controller.stop();
    await server.close();
    client.close();
  }
}
