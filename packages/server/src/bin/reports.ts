/**
 * `kyverno-ts reports`: the reports controller against a cluster (kubeconfig or in-cluster), with
 * upstream's flag names: background scans every `--backgroundScanInterval` with
 * `--backgroundScanWorkers` workers, leader election on the `kyverno-reports-controller` Lease, and
 * Prometheus metrics on `--metrics-port`.
 */
import { hostname } from "node:os";
import { type ContextLoader, createEngine, type EvaluationLimits } from "@kyverno-ts/engine";
import { type ServerClock, systemClock } from "../clock.js";
import { createReportsMetrics, reportsConfigProblems } from "../controllers/reports/metrics.js";
import { createReportsController } from "../controllers/reports/reports-controller.js";
import { type EventSettings, eventSettings, startClusterEvents } from "../events/cluster-events.js";
import { parseFlags } from "../flags/parse.js";
import type { Logger } from "../logger.js";
import type { LogSettings } from "../logging/log-lines.js";
import {
  acceptedExceptionNamespaces,
  type ExceptionSettings,
  exceptionSettings,
} from "../policycache/exception-settings.js";
import { parseEnableReporting, type ReportingSettings } from "../reports/reporting.js";
import { serverVersion } from "../version.js";
import { createMetricsServer, type MetricsServer } from "../webhooks/metrics-server.js";
import type { TextOutput } from "./admission.js";
import { connectController, logFlags, openControllerLog } from "./controller-start.js";
import { evaluationFlags } from "./evaluation-flags.js";
import { stopSignal } from "./stop-signal.js";

/** What `kyverno-ts reports --help` says before the flags. */
export const REPORTS_DESCRIPTION = `Runs Kyverno's reports controller: background scans of the resources background policies match,
written as PolicyReports / ClusterPolicyReports (one per resource). Replicas elect a leader on the
Lease kyverno-reports-controller; only the leader writes. Admission results of a separate
kyverno-ts admission process arrive as EphemeralReports (reports.kyverno.io/v1), merged then deleted.
Unless node's flags or NODE_OPTIONS set --max-semi-space-size, the command re-executes itself (same
pid) with --max-semi-space-size=4, which keeps the heap of a large scan near what it holds.`;

/** Parsed flags of the reports command. */
export interface ReportsArgs {
  kubeconfig: string | undefined;
  scanIntervalMs: number;
  /** `--evaluationForeachElements`, `--evaluationPatternNodes`, `--evaluationJMESPathSteps` (given ones). */
  evaluationLimits: Partial<EvaluationLimits>;
  workers: number;
  /** `--enablePolicyException` and `--exceptionNamespace`. */
  policyExceptions: ExceptionSettings;
  metricsPort: number;
  /** `--host`: the metrics server's listen address (default 0.0.0.0). */
  host: string;
  qps: number;
  burst: number;
  namespace: string;
  /** The metrics ConfigMap (`kyverno-metrics`) in `namespace`, read at start. */
  metricsConfigMapName: string;
  identity: string;
  /** `--admissionReports`: merge the admission controller's ephemeral reports. */
  admissionReports: boolean;
  /** `--leaderElectionRetryPeriod`, when given. */
  leaderRetryPeriodMs: number | undefined;
  /** `--loggingFormat`, `--loggingtsFormat`, `-v` and `--log-level`. */
  log: LogSettings;
  help: boolean;
  /** One line per given flag that has no effect in kyverno-ts (logged at start). */
  warnings: string[];
  /** `--omitEvents`, `--maxQueuedEvents`, `--eventsRateLimitQPS`, `--eventsRateLimitBurst`. */
  events: EventSettings;
  /** `--enableReporting`: the rule types reported. */
  reporting: ReportingSettings;
}

/** Outcome of parsing: the flags, or a message for the user. */
export type ParsedReportsArgs = { ok: true; args: ReportsArgs } | { ok: false; message: string };

/** Parses the command's arguments (everything after `reports`); `env` supplies the defaults upstream reads. */
export function parseReportsArgs(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>> = process.env,
): ParsedReportsArgs {
  const parsed = parseFlags("reports", argv, env);
  if (!parsed.ok) return parsed;
  const f = parsed.flags;
  const interval = f.durationMs("backgroundScanInterval");
  if (interval < 1000)
    return {
      ok: false,
      message: "--backgroundScanInterval must be a Go duration of at least 1s, e.g. 1h or 30m",
    };
  const ranges: Array<[string, number, number]> = [
    ["backgroundScanWorkers", 1, 1000],
    ["metricsPort", 0, 65535],
    ["clientRateLimitQPS", 0, 1_000_000],
    ["clientRateLimitBurst", 1, 1_000_000],
  ];
  for (const [name, min, max] of ranges) {
    const n = f.float(name);
    if (!Number.isInteger(n) || n < min || n > max)
      return {
        ok: false,
        message: `--${name} must be a whole number from ${min} to ${max}, got "${f.string(name)}"`,
      };
  }
  const log = logFlags(f);
  if (!log.ok) return log;
  const events = eventSettings({
    omitEvents: f.string("omitEvents"),
    maxQueuedEvents: f.int("maxQueuedEvents"),
    eventsRateLimitQPS: f.float("eventsRateLimitQPS"),
    eventsRateLimitBurst: f.int("eventsRateLimitBurst"),
  });
  if (!events.ok) return events;
  const reporting = parseEnableReporting(f.string("enableReporting"));
  if (!reporting.ok) return reporting;
  // The classic engine's budgets (the scans' CEL policies keep the engine's default cost limit).
  const budgets = evaluationFlags(f, ["foreachElements", "patternNodes", "jmespathSteps"]);
  if (!budgets.ok) return budgets;
  const kubeconfig = f.optional("kubeconfig");
  return {
    ok: true,
    args: {
      kubeconfig: kubeconfig === "" ? undefined : kubeconfig,
      scanIntervalMs: interval,
      evaluationLimits: budgets.limits,
      workers: f.int("backgroundScanWorkers"),
      policyExceptions: exceptionSettings(f.bool("enablePolicyException"), f.optional("exceptionNamespace")),
      admissionReports: f.bool("admissionReports"),
      metricsPort: f.int("metricsPort"),
      host: f.string("host"),
      qps: f.float("clientRateLimitQPS"),
      burst: f.int("clientRateLimitBurst"),
      namespace: f.string("namespace"),
      metricsConfigMapName: f.string("metricsConfigMap"),
      identity: f.optional("identity") || hostname(),
      leaderRetryPeriodMs: f.given("leaderElectionRetryPeriod")
        ? f.durationMs("leaderElectionRetryPeriod")
        : undefined,
      log: log.settings,
      help: f.help,
      warnings: f.warnings(),
      events: events.settings,
      reporting: reporting.settings,
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
  /** What `--help` prints (the CLI renders it from the flag table); default: the description. */
  usage?: string;
}

/** Exit statuses: 0 after a clean stop, 1 when the controller cannot run, 2 for unusable flags. */
export const ReportsExit = { Ok: 0, Failure: 1, InputError: 2 } as const;

/** Runs the reports controller until stopped (then drains the queue); resolves with the exit status. */
export async function runReportsCommand(options: ReportsCommandOptions): Promise<number> {
  const { stdout, stderr } = options;
  const parsed = parseReportsArgs(options.args);
  if (!parsed.ok) {
    stderr.write(`error: ${parsed.message}\n(run kyverno-ts reports --help for the flags)\n`);
    return ReportsExit.InputError;
  }
  const args = parsed.args;
  if (args.help) {
    stdout.write(options.usage ?? `Usage: kyverno-ts reports [flags]\n\n${REPORTS_DESCRIPTION}\n`);
    return ReportsExit.Ok;
  }
  const clock = options.clock ?? systemClock();
  const logger = openControllerLog({
    name: "reports-controller",
    log: args.log,
    stderr,
    clock,
    logger: options.logger,
    warnings: args.warnings,
  });
  const connected = await connectController({
    clientType: "reports-controller",
    kubeconfig: args.kubeconfig,
    qps: args.qps,
    burst: args.burst,
    namespace: args.namespace,
    metricsConfigMapName: args.metricsConfigMapName,
    clock,
    logger,
    stderr,
    configProblems: reportsConfigProblems,
    createMetrics: (config) => createReportsMetrics({ version: serverVersion(), config }),
  });
  if (connected === undefined) return ReportsExit.Failure;
  const { client, metrics } = connected;
  const exceptionNamespaces = acceptedExceptionNamespaces(args.policyExceptions);
  const engine = (contextLoader: ContextLoader) =>
    createEngine({
      clock: clock,
      exceptionNamespaces,
      contextLoader,
      limits: args.evaluationLimits,
    });
  // Events of background scans, through a client of their own (only the leader scans).
  const events = startClusterEvents({
    kube: {
      ...(args.kubeconfig === undefined ? {} : { kubeconfigPath: args.kubeconfig }),
      onQuery: (e) => metrics.clientQuery(e),
    },
    identity: args.identity,
    settings: args.events,
    clock,
    logger,
  });
  const controller = createReportsController({
    client,
    events,
    engine,
    clock,
    logger,
    metrics,
    workers: args.workers,
    scanIntervalMs: args.scanIntervalMs,
    exceptionNamespaces,
    // Admission results of a separate `kyverno-ts admission` process arrive as ephemeral reports.
    ephemeralReports: args.admissionReports,
    reporting: args.reporting,
    // Kyverno's ConfigMap (upstream's INIT_CONFIG, default `kyverno`), watched for resourceFilters.
    kyvernoConfigMap: { namespace: args.namespace, name: process.env.INIT_CONFIG || "kyverno" },
    leaderElection: {
      namespace: args.namespace,
      identity: args.identity,
      ...(args.leaderRetryPeriodMs !== undefined ? { retryPeriodMs: args.leaderRetryPeriodMs } : {}),
    },
  });
  // Ready once the informers have synced (`controller.start()` resolved), as a readiness probe expects.
  let started = false;
  const server: MetricsServer = createMetricsServer({
    metrics,
    ready: () => started,
  });
  const stop = stopSignal(options.signal);
  try {
    const { port } = await server.listen({ host: args.host, port: args.metricsPort });
    await Promise.race([
      controller.start(),
      new Promise<void>((resolve) => stop.signal.addEventListener("abort", () => resolve(), { once: true })),
    ]);
    if (!stop.signal.aborted) {
      started = true;
      stdout.write(
        `kyverno-ts reports: scanning every ${args.scanIntervalMs / 1000}s with ${args.workers} workers; ` +
          `metrics: http://${args.host.includes(":") ? `[${args.host}]` : args.host}:${port}/metrics\n`,
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
    await events.stop();
    await server.close();
    client.close();
  }
}
