/**
 * `kyverno-ts reports`: the reports controller against a cluster (kubeconfig or in-cluster), with
 * upstream's flag names: background scans every `--backgroundScanInterval` with
 * `--backgroundScanWorkers` workers, leader election on the `kyverno-reports-controller` Lease, and
 * Prometheus metrics on `--metrics-port`.
 */
import { hostname } from "node:os";
import { parseArgs } from "node:util";
import { type ContextLoader, createEngine } from "@kyverno-ts/engine";
import { createKubeClient, type KubeClient } from "@kyverno-ts/kube";
import { pino } from "pino";
import { serverVersion } from "../admission-controller.js";
import { engineClock, type ServerClock, systemClock } from "../clock.js";
import { parseGoDuration } from "../controllers/reports/duration.js";
import {
  createReportsMetrics,
  type ReportsMetrics,
  reportsConfigProblems,
} from "../controllers/reports/metrics.js";
import { createReportsController } from "../controllers/reports/reports-controller.js";
import type { Logger, LogLevel } from "../logger.js";
import { loadMetricsConfig } from "../metrics/configmap.js";
import {
  acceptedExceptionNamespaces,
  type ExceptionSettings,
  exceptionFlagsHelp,
  exceptionSettings,
} from "../policycache/exception-settings.js";
import { createMetricsServer, type MetricsServer } from "../webhooks/metrics-server.js";
import type { TextOutput } from "./admission.js";
import { stopSignal } from "./stop-signal.js";

/** Usage text of the command. */
export const REPORTS_USAGE = `Usage: kyverno-ts reports [flags]

Runs Kyverno's reports controller: background scans of the resources background policies match,
written as PolicyReports / ClusterPolicyReports (one per resource). Replicas elect a leader on the
Lease kyverno-reports-controller; only the leader writes. Admission results of a separate
kyverno-ts admission process arrive as EphemeralReports (reports.kyverno.io/v1), merged then deleted.
Unless node's flags or NODE_OPTIONS set
--max-semi-space-size, the command re-executes itself (same pid) with --max-semi-space-size=4, which
keeps the heap of a large scan near what it holds.

Options:
  --kubeconfig <file>               kubeconfig (default: KUBECONFIG, ~/.kube/config, then in-cluster)
  --backgroundScanInterval <dur>    full rescan period, a Go duration (default 1h)
  --backgroundScanWorkers <n>       concurrent reconciles (default 2)
${exceptionFlagsHelp(36)}
  --metrics-port <n>                Prometheus metrics port, plain HTTP (default 8000; 0 picks a free port)
  --clientRateLimitQPS <n>          API requests per second (default 300)
  --clientRateLimitBurst <n>        API requests above the rate at once (default 300)
  --namespace <ns>                  namespace of the Lease (default: KYVERNO_NAMESPACE or kyverno)
  --metricsConfigMap <name>         metrics ConfigMap, read at start (default: METRICS_CONFIG or kyverno-metrics)
  --identity <name>                 this replica's identity (default: POD_NAME or the host name)
  --log-level <level>               debug, info (default), warn, error or silent
`;

/** Parsed flags of the reports command. */
export interface ReportsArgs {
  kubeconfig: string | undefined;
  scanIntervalMs: number;
  workers: number;
  /** `--enablePolicyException` and `--exceptionNamespace`. */
  policyExceptions: ExceptionSettings;
  metricsPort: number;
  qps: number;
  burst: number;
  namespace: string;
  /** The metrics ConfigMap (`kyverno-metrics`) in `namespace`, read at start. */
  metricsConfigMapName: string;
  identity: string;
  logLevel: LogLevel;
  help: boolean;
}

/** Outcome of parsing: the flags, or a message for the user. */
export type ParsedReportsArgs = { ok: true; args: ReportsArgs } | { ok: false; message: string };

const LEVELS: readonly string[] = ["debug", "info", "warn", "error", "silent"];

function wholeNumber(value: string | undefined, fallback: number, flag: string, min: number, max: number) {
  if (value === undefined) return fallback;
  const n = Number(value);
  return Number.isInteger(n) && n >= min && n <= max
    ? n
    : `${flag} must be a whole number from ${min} to ${max}, got "${value}"`;
}

/** Parses the command's arguments (everything after `reports`); `env` supplies the defaults upstream reads. */
export function parseReportsArgs(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>> = process.env,
): ParsedReportsArgs {
  let values: Record<string, string | boolean | undefined>;
  // Go-style `--enablePolicyException=true|false`, as upstream's flags are written.
  const args: string[] = [];
  for (const arg of argv) {
    const m = /^--enablePolicyException=(.*)$/.exec(arg);
    if (m === null) args.push(arg);
    else if (m[1] === "true" || m[1] === "false")
      args.push(m[1] === "true" ? "--enablePolicyException" : "--no-enablePolicyException");
    else return { ok: false, message: `--enablePolicyException takes true or false, got "${m[1]}"` };
  }
  try {
    values = parseArgs({
      args,
      allowNegative: true,
      strict: true,
      allowPositionals: false,
      options: {
        kubeconfig: { type: "string" },
        backgroundScanInterval: { type: "string" },
        backgroundScanWorkers: { type: "string" },
        enablePolicyException: { type: "boolean" },
        exceptionNamespace: { type: "string" },
        "metrics-port": { type: "string" },
        metricsPort: { type: "string" },
        clientRateLimitQPS: { type: "string" },
        clientRateLimitBurst: { type: "string" },
        namespace: { type: "string" },
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
  const interval = parseGoDuration(str("backgroundScanInterval") ?? "1h");
  if (interval === undefined || interval < 1000)
    return {
      ok: false,
      message: "--backgroundScanInterval must be a Go duration of at least 1s, e.g. 1h or 30m",
    };
  const numbers = {
    workers: wholeNumber(str("backgroundScanWorkers"), 2, "--backgroundScanWorkers", 1, 1000),
    metricsPort: wholeNumber(str("metrics-port") ?? str("metricsPort"), 8000, "--metrics-port", 0, 65535),
    qps: wholeNumber(str("clientRateLimitQPS"), 300, "--clientRateLimitQPS", 0, 1_000_000),
    burst: wholeNumber(str("clientRateLimitBurst"), 300, "--clientRateLimitBurst", 1, 1_000_000),
  };
  for (const n of Object.values(numbers)) if (typeof n === "string") return { ok: false, message: n };
  const logLevel = str("log-level") ?? "info";
  if (!LEVELS.includes(logLevel))
    return { ok: false, message: `--log-level must be one of ${LEVELS.join(", ")}` };
  return {
    ok: true,
    args: {
      kubeconfig: str("kubeconfig"),
      scanIntervalMs: interval,
      workers: numbers.workers as number,
      policyExceptions: exceptionSettings(values.enablePolicyException === true, str("exceptionNamespace")),
      metricsPort: numbers.metricsPort as number,
      qps: numbers.qps as number,
      burst: numbers.burst as number,
      namespace: str("namespace") ?? env.KYVERNO_NAMESPACE ?? "kyverno",
      metricsConfigMapName: str("metricsConfigMap") ?? env.METRICS_CONFIG ?? "kyverno-metrics",
      identity: str("identity") ?? env.POD_NAME ?? hostname(),
      logLevel: logLevel as LogLevel,
      help: values.help === true,
    },
  };
}

/** Options of `runReportsCommand`. */
export interface ReportsCommandOptions {
  /** Arguments after `reports`. */
  args: readonly string[];
  stdout: TextOutput;
  stderr: TextOutput;
  /** Stops the controller; when omitted, SIGINT and SIGTERM do. */
  signal?: AbortSignal;
  clock?: ServerClock;
  /** Structured logs; defaults to JSON lines on `stderr`. */
  logger?: Logger;
  /** Called once the caches have synced and metrics are served. */
  onReady?: (info: { metricsPort: number }) => void;
}

/** Exit statuses: 0 after a clean stop, 1 when the controller cannot run, 2 for unusable flags. */
export const ReportsExit = { Ok: 0, Failure: 1, InputError: 2 } as const;

/** Runs the reports controller until stopped (then drains the queue); resolves with the exit status. */
export async function runReportsCommand(options: ReportsCommandOptions): Promise<number> {
  const { stdout, stderr } = options;
  const parsed = parseReportsArgs(options.args);
  if (!parsed.ok) {
    stderr.write(`error: ${parsed.message}\n\n${REPORTS_USAGE}`);
    return ReportsExit.InputError;
  }
  const args = parsed.args;
  if (args.help) {
    stdout.write(REPORTS_USAGE);
    return ReportsExit.Ok;
  }
  const clock = options.clock ?? systemClock();
  const stream = { write: (text: string) => void stderr.write(text) };
  const logger =
    options.logger ?? pino({ level: args.logLevel, base: { component: "reports-controller" } }, stream);
  let metrics: ReportsMetrics | undefined;
  let client: KubeClient;
  try {
    client = createKubeClient({
      ...(args.kubeconfig === undefined ? {} : { kubeconfigPath: args.kubeconfig }),
      qps: args.qps,
      burst: args.burst,
      clientType: "reports-controller",
      onQuery: (e) => metrics?.clientQuery(e),
      clock,
    });
  } catch (error) {
    stderr.write(`error: cannot load the cluster configuration: ${(error as Error).message}\n`);
    return ReportsExit.Failure;
  }
  const source = `ConfigMap ${args.namespace}/${args.metricsConfigMapName}`;
  const metricsConfig = await loadMetricsConfig(client, args.namespace, args.metricsConfigMapName);
  for (const problem of [...metricsConfig.problems, ...reportsConfigProblems(metricsConfig.config, source)])
    logger.warn({ problem }, "metrics configuration");
  metrics = createReportsMetrics({ version: serverVersion(), config: metricsConfig.config });
  const exceptionNamespaces = acceptedExceptionNamespaces(args.policyExceptions);
  const engine = (contextLoader: ContextLoader) =>
    createEngine({ clock: engineClock(clock), exceptionNamespaces, contextLoader });
  const controller = createReportsController({
    client,
    engine,
    clock,
    logger,
    metrics,
    workers: args.workers,
    scanIntervalMs: args.scanIntervalMs,
    exceptionNamespaces,
    // Admission results of a separate `kyverno-ts admission` process arrive as ephemeral reports.
    ephemeralReports: true,
    leaderElection: { namespace: args.namespace, identity: args.identity },
  });
  // Ready once the informers have synced (`controller.start()` resolved), as a readiness probe expects.
  let started = false;
  const server: MetricsServer = createMetricsServer({
    metrics,
    ready: () => started,
  });
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
        `kyverno-ts reports: scanning every ${args.scanIntervalMs / 1000}s with ${args.workers} workers; ` +
          `metrics: http://0.0.0.0:${port}/metrics\n`,
      );
      options.onReady?.({ metricsPort: port });
      await new Promise<void>((resolve) => {
        if (stop.signal.aborted) resolve();
        else stop.signal.addEventListener("abort", () => resolve(), { once: true });
      });
    }
    return ReportsExit.Ok;
  } catch (error) {
    stderr.write(`error: ${(error as Error).message}\n`);
    return ReportsExit.Failure;
  } finally {
    stop.dispose();
    await controller.stop();
    await server.close();
    client.close();
  }
}
