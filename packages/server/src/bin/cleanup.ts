/**
 * `kyverno-ts cleanup`: the cleanup controller against a cluster (kubeconfig or in-cluster), with
 * upstream's flag names: cleanup policies on their schedules, the `cleanup.kyverno.io/ttl` label
 * every `--ttlReconciliationInterval`, webhooks on `--cleanupServerPort`, leader election on the
 * `kyverno-cleanup-controller` Lease and Prometheus metrics on `--metricsPort`.
 */
import { hostname } from "node:os";
import { type ServerClock, systemClock } from "../clock.js";
import { type CleanupController, startCleanupController } from "../controllers/cleanup/cleanup-controller.js";
import { createCleanupMetrics } from "../controllers/cleanup/metrics.js";
import { parseFlags } from "../flags/parse.js";
import type { Logger } from "../logger.js";
import type { LogSettings } from "../logging/log-lines.js";
import { serverVersion } from "../version.js";
import { createMetricsServer } from "../webhooks/metrics-server.js";
import type { TextOutput } from "./admission.js";
import { connectController, logFlags, openControllerLog } from "./controller-start.js";
import { stopSignal } from "./stop-signal.js";

/** What the command does, for `--help` (the flags are listed from the flag table). */
export const CLEANUP_DESCRIPTION = `Runs Kyverno's cleanup controller: CleanupPolicies and ClusterCleanupPolicies (kyverno.io/v2) delete
the resources they match on their cron schedules, and resources labelled cleanup.kyverno.io/ttl are
deleted when their time-to-live expires. Its webhooks reject invalid cleanup policies and warn about
unreadable TTL labels. Replicas elect a leader on the Lease kyverno-cleanup-controller; only the
leader deletes and manages the webhook certificates and configurations; every replica serves webhooks.`;

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
  /** `--loggingFormat`, `--loggingtsFormat`, `-v` and `--log-level`. */
  log: LogSettings;
  help: boolean;
  /** One line per given upstream flag this controller accepts without acting on it. */
  warnings: string[];
}

/** Outcome of parsing: the flags, or a message for the user. */
export type ParsedCleanupArgs = { ok: true; args: CleanupArgs } | { ok: false; message: string };

/** Parses the command's arguments (everything after `cleanup`; the shared flag table: upstream's other flags are accepted with a warning); `env` supplies upstream's defaults. */
export function parseCleanupArgs(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>> = process.env,
): ParsedCleanupArgs {
  const parsed = parseFlags("cleanup", argv, env);
  if (!parsed.ok) return parsed;
  const f = parsed.flags;
  const interval = f.durationMs("ttlReconciliationInterval");
  if (interval < 1000)
    return {
      ok: false,
      message: "--ttlReconciliationInterval must be a Go duration of at least 1s, e.g. 1m",
    };
  const retry = f.durationMs("leaderElectionRetryPeriod");
  if (retry < 100 || retry > 5000)
    return { ok: false, message: "--leaderElectionRetryPeriod must be a Go duration from 100ms to 5s" };
  const ranges: Array<[string, number]> = [
    ["cleanupServerPort", 65535],
    ["metricsPort", 65535],
    ["servicePort", 65535],
    ["clientRateLimitQPS", 1_000_000],
    ["clientRateLimitBurst", 1_000_000],
  ];
  for (const [name, max] of ranges) {
    const n = f.float(name);
    if (!Number.isInteger(n) || n < 0 || n > max)
      return {
        ok: false,
        message: `--${name} must be a whole number from 0 to ${max}, got "${f.string(name)}"`,
      };
  }
  const log = logFlags(f);
  if (!log.ok) return log;
  const kubeconfig = f.optional("kubeconfig");
  const serverIP = f.optional("serverIP");
  return {
    ok: true,
    args: {
      kubeconfig: kubeconfig === "" ? undefined : kubeconfig,
      ttlIntervalMs: interval,
      port: f.int("cleanupServerPort"),
      metricsPort: f.int("metricsPort"),
      namespace: f.string("namespace"),
      serviceName: f.optional("serviceName") || "kyverno-cleanup-controller",
      servicePort: f.int("servicePort"),
      serverIP: serverIP === "" ? undefined : serverIP,
      metricsConfigMapName: f.string("metricsConfigMap"),
      retryPeriodMs: retry,
      qps: f.float("clientRateLimitQPS"),
      burst: f.int("clientRateLimitBurst"),
      identity: f.optional("identity") || hostname(),
      log: log.settings,
      help: f.help,
      warnings: f.warnings(),
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
  /** The `--help` text (the CLI lays it out from the flag table); a short one when omitted. */
  usage?: string;
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
  const usage = options.usage ?? `Usage: kyverno-ts cleanup [flags]\n\n${CLEANUP_DESCRIPTION}\n`;
  if (!parsed.ok) {
    stderr.write(`error: ${parsed.message}\n\n${usage}`);
    return CleanupExit.InputError;
  }
  const args = parsed.args;
  if (args.help) {
    stdout.write(usage);
    return CleanupExit.Ok;
  }
  const clock = options.clock ?? systemClock();
  const logger = openControllerLog({
    name: "cleanup-controller",
    log: args.log,
    stderr,
    clock,
    logger: options.logger,
    warnings: args.warnings,
  });
  const stop = stopSignal(options.signal);
  const connected = await connectController({
    clientType: "cleanup-controller",
    kubeconfig: args.kubeconfig,
    qps: args.qps,
    burst: args.burst,
    namespace: args.namespace,
    metricsConfigMapName: args.metricsConfigMapName,
    clock,
    logger,
    stderr,
    createMetrics: (config) => createCleanupMetrics({ version: serverVersion(), config }),
    signal: stop.signal,
  });
  if (connected === undefined) {
    stop.dispose();
    return CleanupExit.Failure;
  }
  const { client, metrics } = connected;
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
