/**
 * `kyverno-ts background`: the background controller against a cluster (kubeconfig or in-cluster):
 * UpdateRequests processed by `--genWorkers` workers while leading on the
 * `kyverno-background-controller` Lease; metrics and probes on `--metricsPort`. Flags come from the
 * shared table (flags/catalog.ts): upstream's flags this controller does not act on are accepted with
 * one warning each.
 */
import { hostname } from "node:os";
import { createEngine } from "@kyverno-ts/engine";
import type { KubeClient } from "@kyverno-ts/kube";
import { type ServerClock, systemClock } from "../clock.js";
import { createBoundedResultQueue } from "../controllers/admission/results.js";
import { createBackgroundController } from "../controllers/background/background-controller.js";
import {
  type BackgroundMetrics,
  backgroundConfigProblems,
  createBackgroundMetrics,
} from "../controllers/background/metrics.js";
import { type EventSettings, eventSettings, startClusterEvents } from "../events/cluster-events.js";
import { parseFlags } from "../flags/parse.js";
import type { Logger } from "../logger.js";
import type { LogSettings } from "../logging/log-lines.js";
import { acceptedExceptionNamespaces, exceptionSettings } from "../policycache/exception-settings.js";
import { createEphemeralReportPublisher } from "../reports/ephemeral-reports.js";
import { parseEnableReporting, type ReportingSettings, reportedResults } from "../reports/reporting.js";
import { serverVersion } from "../version.js";
import { createMetricsServer } from "../webhooks/metrics-server.js";
import type { TextOutput } from "./admission.js";
import { connectController, logFlags, openControllerLog } from "./controller-start.js";
import { stopSignal } from "./stop-signal.js";

/** What the command does, for `--help` (the flags are listed from the flag table). */
export const BACKGROUND_DESCRIPTION = `Runs Kyverno's background controller: generate and mutate-existing rules. The admission
controller turns admitted requests into UpdateRequests (kyverno.io/v2); this controller processes
them (retries with backoff, status Pending / Completed / Failed / Skip, completed ones deleted),
keeps synchronized generated resources in sync, and applies generateExisting /
mutateExistingOnPolicyUpdate rules when policies change. Replicas elect a leader on the Lease
kyverno-background-controller; only the leader works.`;

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
  /** Kyverno's ConfigMap (`--configMap`, upstream's INIT_CONFIG): `generateSuccessEvents`. */
  configMapName: string;
  /** `--omitEvents`, `--maxQueuedEvents`, `--eventsRateLimitQPS`, `--eventsRateLimitBurst`. */
  events: EventSettings;
  /** `--enableReporting`: generate and mutate-existing results are reported when it names them. */
  reporting: ReportingSettings;
  /** `--loggingFormat`, `--loggingtsFormat`, `-v` and `--log-level`. */
  log: LogSettings;
  help: boolean;
  /** One line per given upstream flag this controller accepts without acting on it. */
  warnings: string[];
}

/** Parses the arguments after `background` (the shared flag table: upstream's other flags are accepted with a warning); `env` gives upstream's environment defaults. */
export function parseBackgroundArgs(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>> = process.env,
): { ok: true; args: BackgroundArgs } | { ok: false; message: string } {
  const parsed = parseFlags("background", argv, env);
  if (!parsed.ok) return parsed;
  const f = parsed.flags;
  const ranges: Array<[string, number, number]> = [
    ["genWorkers", 1, 1000],
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
  const namespace = f.string("namespace");
  const kubeconfig = f.optional("kubeconfig");
  const events = eventSettings({
    omitEvents: f.string("omitEvents"),
    maxQueuedEvents: f.int("maxQueuedEvents"),
    eventsRateLimitQPS: f.float("eventsRateLimitQPS"),
    eventsRateLimitBurst: f.int("eventsRateLimitBurst"),
  });
  if (!events.ok) return events;
  const reporting = parseEnableReporting(f.string("enableReporting"));
  if (!reporting.ok) return reporting;
  return {
    ok: true,
    args: {
      kubeconfig: kubeconfig === "" ? undefined : kubeconfig,
      workers: f.int("genWorkers"),
      exceptionNamespaces: acceptedExceptionNamespaces(
        exceptionSettings(f.bool("enablePolicyException"), f.optional("exceptionNamespace")),
      ),
      metricsPort: f.int("metricsPort"),
      qps: f.float("clientRateLimitQPS"),
      burst: f.int("clientRateLimitBurst"),
      namespace,
      serviceAccount: `system:serviceaccount:${namespace}:${f.string("serviceAccountName")}`,
      metricsConfigMapName: f.string("metricsConfigMap"),
      identity: f.optional("identity") || hostname(),
      configMapName: f.string("configMap"),
      events: events.settings,
      reporting: reporting.settings,
      log: log.settings,
      help: f.help,
      warnings: f.warnings(),
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
  /** The `--help` text (the CLI lays it out from the flag table); a short one when omitted. */
  usage?: string;
}

/**
 * The controller and what it reports through: Kubernetes Events of processed UpdateRequests (through
 * a client of their own: only the leader processes), and generate and mutate-existing results as
 * ephemeral reports for the reports controller, as upstream.
 */
function createBackgroundParts(
  args: BackgroundArgs,
  connected: { client: KubeClient; metrics: BackgroundMetrics },
  options: Pick<BackgroundCommandOptions, "leaderTimings"> & { clock: ServerClock; logger: Logger },
) {
  const { client, metrics } = connected;
  const { clock, logger } = options;
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
  const results = createBoundedResultQueue({ accepts: reportedResults(args.reporting) });
  const publisher = createEphemeralReportPublisher({ client, source: results, logger });
  const controller = createBackgroundController({
    results,
    client,
    engine: createEngine({ clock: clock, exceptionNamespaces: args.exceptionNamespaces }),
    namespace: args.namespace,
    workers: args.workers,
    exceptionNamespaces: args.exceptionNamespaces,
    leaderElection: { identity: args.identity, ...(options.leaderTimings ?? {}) },
    user: args.serviceAccount,
    clock,
    logger,
    metrics,
    kyvernoConfigMap: { namespace: args.namespace, name: args.configMapName },
    events: (state) =>
      events.backgroundEvents({
        generateSuccessEvents: () => state.config().generateSuccessEvents === true,
        policyObject: state.policyObject,
      }),
  });
  return { events, publisher, controller };
}

/** Runs the controller until stopped; resolves with the exit status (0 clean stop, 1 failure, 2 bad flags). */
export async function runBackgroundCommand(options: BackgroundCommandOptions): Promise<number> {
  const { stdout, stderr } = options;
  const parsed = parseBackgroundArgs(options.args);
  const usage = options.usage ?? `Usage: kyverno-ts background [flags]\n\n${BACKGROUND_DESCRIPTION}\n`;
  if (!parsed.ok) {
    stderr.write(`error: ${parsed.message}\n\n${usage}`);
    return 2;
  }
  const args = parsed.args;
  if (args.help) {
    stdout.write(usage);
    return 0;
  }
  const clock = options.clock ?? systemClock();
  const logger = openControllerLog({
    name: "background-controller",
    log: args.log,
    stderr,
    clock,
    logger: options.logger,
    warnings: args.warnings,
  });
  const connected = await connectController({
    clientType: "background-controller",
    kubeconfig: args.kubeconfig,
    qps: args.qps,
    burst: args.burst,
    namespace: args.namespace,
    metricsConfigMapName: args.metricsConfigMapName,
    clock,
    logger,
    stderr,
    configProblems: backgroundConfigProblems,
    createMetrics: (config) => createBackgroundMetrics({ version: serverVersion(), config }),
  });
  if (connected === undefined) return 1;
  const { client, metrics } = connected;
  const { events, publisher, controller } = createBackgroundParts(args, connected, {
    ...options,
    clock,
    logger,
  });
  let started = false;
  const server = createMetricsServer({ metrics, ready: () => started && controller.synced() });
  const stop = stopSignal(options.signal);
  try {
    const { port } = await server.listen({ port: args.metricsPort });
    publisher.start();
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
    await publisher.stop();
    await events.stop();
    await server.close();
    client.close();
  }
}
