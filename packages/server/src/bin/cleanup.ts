/**
 * `kyverno-ts cleanup`: the cleanup controller against a cluster (kubeconfig or in-cluster), with
 * upstream's flag names: cleanup policies on their schedules, the `cleanup.kyverno.io/ttl` label
 * every `--ttlReconciliationInterval`, webhooks on `--cleanupServerPort`, leader election on the
 * `kyverno-cleanup-controller` Lease and Prometheus metrics on `--metricsPort`.
 */
import { hostname } from "node:os";
import { parseArgs } from "node:util";
import { createKubeClient, type KubeClient } from "@kyverno-ts/kube";
import { pino } from "pino";
import { serverVersion } from "../admission-controller.js";
import { type ServerClock, systemClock } from "../clock.js";
import { type CleanupController, startCleanupController } from "../controllers/cleanup/cleanup-controller.js";
import { createCleanupMetrics } from "../controllers/cleanup/metrics.js";
import { parseGoDuration } from "../controllers/reports/duration.js";
import type { Logger, LogLevel } from "../logger.js";
import { loadMetricsConfig } from "../metrics/configmap.js";
import { createMetricsServer } from "../webhooks/metrics-server.js";
import type { TextOutput } from "./admission.js";
import { stopSignal } from "./stop-signal.js";

/** Usage text of the command. */
export const CLEANUP_USAGE = `Usage: kyverno-ts cleanup [flags]

Runs Kyverno's cleanup controller: CleanupPolicies and ClusterCleanupPolicies (kyverno.io/v2) delete
the resources they match on their cron schedules, and resources labelled cleanup.kyverno.io/ttl are
deleted when their time-to-live expires. Its webhooks reject invalid cleanup policies and warn about
unreadable TTL labels. Replicas elect a leader on the Lease kyverno-cleanup-controller; only the
leader deletes and manages the webhook certificates and configurations; every replica serves webhooks.

Options:
  --kubeconfig <file>                 kubeconfig (default: KUBECONFIG, ~/.kube/config, then in-cluster)
  --ttlReconciliationInterval <dur>   how often the kinds watched for the TTL label are refreshed (default 1m)
  --cleanupServerPort <n>             webhook HTTPS port (default 9443; 0 picks a free port)
  --metricsPort <n>                   Prometheus metrics port, plain HTTP (default 8000; 0 picks a free port)
  --namespace <ns>                    Kyverno's namespace (default: KYVERNO_NAMESPACE or kyverno)
  --serviceName <name>                webhook Service (default: KYVERNO_SVC or kyverno-cleanup-controller)
  --servicePort <n>                   the Service's port (default 443)
  --serverIP <ip[:port]>              outside the cluster: webhooks call https://<ip>:<port> (default: the webhook port)
  --metricsConfigMap <name>           metrics ConfigMap, read at start (default: METRICS_CONFIG or kyverno-metrics)
  --leaderElectionRetryPeriod <dur>   leader election renewal period (default 2s)
  --clientRateLimitQPS <n>            API requests per second (default 300)
  --clientRateLimitBurst <n>          API requests above the rate at once (default 300)
  --identity <name>                   identity in the Lease (default: POD_NAME or the host name)
  --log-level <level>                 debug, info (default), warn, error or silent
`;

/** Parsed flags of the cleanup command. */
export interface CleanupArgs {
  kubeconfig: string | undefined;
  ttlIntervalMs: number;
  port: number;
  metricsPort: number;
  namespace: string;
  serviceName: string;
  servicePort: number;
  serverIP: string | undefined;
  metricsConfigMapName: string;
  retryPeriodMs: number;
  qps: number;
  burst: number;
  identity: string;
  logLevel: LogLevel;
  help: boolean;
}

/** Outcome of parsing: the flags, or a message for the user. */
export type ParsedCleanupArgs = { ok: true; args: CleanupArgs } | { ok: false; message: string };

const LEVELS: readonly string[] = ["debug", "info", "warn", "error", "silent"];

function whole(value: string | undefined, fallback: number, flag: string, max: number): number | string {
  if (value === undefined) return fallback;
  const n = Number(value);
  return Number.isInteger(n) && n >= 0 && n <= max
    ? n
    : `${flag} must be a whole number from 0 to ${max}, got "${value}"`;
}

/** Parses the command's arguments (everything after `cleanup`); `env` supplies upstream's defaults. */
export function parseCleanupArgs(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>> = process.env,
): ParsedCleanupArgs {
  let values: Record<string, string | boolean | undefined>;
  try {
    const string = { type: "string" } as const;
    values = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        kubeconfig: string,
        ttlReconciliationInterval: string,
        cleanupServerPort: string,
        metricsPort: string,
        "metrics-port": string,
        namespace: string,
        serviceName: string,
        servicePort: string,
        serverIP: string,
        metricsConfigMap: string,
        leaderElectionRetryPeriod: string,
        clientRateLimitQPS: string,
        clientRateLimitBurst: string,
        identity: string,
        "log-level": string,
        help: { type: "boolean", short: "h" },
      },
    }).values;
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
  const str = (k: string): string | undefined =>
    typeof values[k] === "string" ? (values[k] as string) : undefined;
  const interval = parseGoDuration(str("ttlReconciliationInterval") ?? "1m");
  if (interval === undefined || interval < 1000)
    return {
      ok: false,
      message: "--ttlReconciliationInterval must be a Go duration of at least 1s, e.g. 1m",
    };
  const retry = parseGoDuration(str("leaderElectionRetryPeriod") ?? "2s");
  if (retry === undefined || retry < 100 || retry > 5000)
    return { ok: false, message: "--leaderElectionRetryPeriod must be a Go duration from 100ms to 5s" };
  const n = {
    port: whole(str("cleanupServerPort"), 9443, "--cleanupServerPort", 65535),
    metricsPort: whole(str("metricsPort") ?? str("metrics-port"), 8000, "--metricsPort", 65535),
    servicePort: whole(str("servicePort"), 443, "--servicePort", 65535),
    qps: whole(str("clientRateLimitQPS"), 300, "--clientRateLimitQPS", 1_000_000),
    burst: whole(str("clientRateLimitBurst"), 300, "--clientRateLimitBurst", 1_000_000),
  };
  for (const v of Object.values(n)) if (typeof v === "string") return { ok: false, message: v };
  const num = n as { [K in keyof typeof n]: number };
  const logLevel = str("log-level") ?? "info";
  if (!LEVELS.includes(logLevel))
    return { ok: false, message: `--log-level must be one of ${LEVELS.join(", ")}` };
  return {
    ok: true,
    args: {
      kubeconfig: str("kubeconfig"),
      ttlIntervalMs: interval,
      port: num.port,
      metricsPort: num.metricsPort,
      namespace: str("namespace") ?? env.KYVERNO_NAMESPACE ?? "kyverno",
      serviceName: str("serviceName") ?? env.KYVERNO_SVC ?? "kyverno-cleanup-controller",
      servicePort: num.servicePort,
      serverIP: str("serverIP"),
      metricsConfigMapName: str("metricsConfigMap") ?? env.METRICS_CONFIG ?? "kyverno-metrics",
      retryPeriodMs: retry,
      qps: num.qps,
      burst: num.burst,
      identity: str("identity") ?? env.POD_NAME ?? hostname(),
      logLevel: logLevel as LogLevel,
      help: values.help === true,
    },
  };
}

/** Options of `runCleanupCommand`. */
export interface CleanupCommandOptions {
  args: readonly string[];
  stdout: TextOutput;
  stderr: TextOutput;
  /** Stops the controller; when omitted, SIGINT and SIGTERM do. */
  signal?: AbortSignal;
  clock?: ServerClock;
  logger?: Logger;
  /** Called once webhooks and metrics are served. */
  onReady?: (info: { port: number; metricsPort: number }) => void;
}

/** Exit statuses: 0 after a clean stop, 1 when the controller cannot run, 2 for unusable flags. */
export const CleanupExit = { Ok: 0, Failure: 1, InputError: 2 } as const;

/** `--serverIP` as the webhooks' base URL (the port added once listening). */
function webhookUrlOf(serverIP: string | undefined): string | ((port: number) => string) | undefined {
  if (serverIP === undefined) return undefined;
  if (/^\[.*\]:\d+$|^[^:[\]]+:\d+$/.test(serverIP)) return `https://${serverIP}`;
  const host = serverIP.includes(":") ? `[${serverIP}]` : serverIP;
  return (port) => `https://${host}:${port}`;
}

/** Runs the cleanup controller until stopped; resolves with the exit status. */
export async function runCleanupCommand(options: CleanupCommandOptions): Promise<number> {
  const { stdout, stderr } = options;
  const parsed = parseCleanupArgs(options.args);
  if (!parsed.ok) {
    stderr.write(`error: ${parsed.message}\n\n${CLEANUP_USAGE}`);
    return CleanupExit.InputError;
  }
  const args = parsed.args;
  if (args.help) {
    stdout.write(CLEANUP_USAGE);
    return CleanupExit.Ok;
  }
  const clock = options.clock ?? systemClock();
  const stream = { write: (text: string) => void stderr.write(text) };
  const logger =
    options.logger ?? pino({ level: args.logLevel, base: { component: "cleanup-controller" } }, stream);
  let metrics: ReturnType<typeof createCleanupMetrics> | undefined;
  let client: KubeClient;
  try {
    client = createKubeClient({
      ...(args.kubeconfig === undefined ? {} : { kubeconfigPath: args.kubeconfig }),
      qps: args.qps,
      burst: args.burst,
      clientType: "cleanup-controller",
      onQuery: (e) => metrics?.clientQuery(e),
      clock,
    });
  } catch (error) {
    stderr.write(`error: cannot load the cluster configuration: ${(error as Error).message}\n`);
    return CleanupExit.Failure;
  }
  const stop = stopSignal(options.signal);
  const loaded = await loadMetricsConfig(client, args.namespace, args.metricsConfigMapName, stop.signal);
  for (const problem of loaded.problems) logger.warn({ problem }, "metrics configuration");
  metrics = createCleanupMetrics({ version: serverVersion(), config: loaded.config });
  let controller: CleanupController | undefined;
  const metricsServer = createMetricsServer({ metrics, ready: () => controller?.ready() ?? false });
  try {
    const { port: metricsPort } = await metricsServer.listen({ port: args.metricsPort });
    const url = webhookUrlOf(args.serverIP);
    controller = await startCleanupController({
      client,
      clock,
      logger,
      metrics,
      namespace: args.namespace,
      serviceName: args.serviceName,
      servicePort: args.servicePort,
      ...(url !== undefined ? { webhookUrl: url } : {}),
      extraHosts: args.serverIP ? [args.serverIP.replace(/:\d+$/, "").replace(/^\[|\]$/g, "")] : [],
      identity: args.identity,
      port: args.port,
      ttlIntervalMs: args.ttlIntervalMs,
      leaderTimings: { retryPeriodMs: args.retryPeriodMs },
      signal: stop.signal,
    });
    stdout.write(
      `kyverno-ts cleanup: webhooks on https://0.0.0.0:${controller.port} as ${args.identity}; ` +
        `TTL kinds refreshed every ${args.ttlIntervalMs / 1000}s; metrics: http://0.0.0.0:${metricsPort}/metrics\n`,
    );
    options.onReady?.({ port: controller.port, metricsPort });
    await new Promise<void>((resolve) => {
      if (stop.signal.aborted) resolve();
      else stop.signal.addEventListener("abort", () => resolve(), { once: true });
    });
    return CleanupExit.Ok;
  } catch (error) {
    if (stop.signal.aborted) return CleanupExit.Ok;
    stderr.write(`error: ${(error as Error).message}\n`);
    return CleanupExit.Failure;
  } finally {
    stop.dispose();
    await controller?.close();
    await metricsServer.close();
    client.close();
  }
}
