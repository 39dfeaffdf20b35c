/**
 * The start-up every cluster controller shares: its log (upstream's line shape, `--loggingFormat`,
 * `--loggingtsFormat`, `-v`, `--log-level`), then its API client (rate limits, the metrics hook on every
 * query) and the metrics ConfigMap read once. The commands (`bin/<controller>.ts`) call these before
 * building their controller.
 */
import { createKubeClient, type KubeClient, type QueryEvent } from "@kyverno-ts/kube";
import type { ServerClock } from "../clock.js";
import type { ParsedFlags } from "../flags/parse.js";
import type { Logger } from "../logger.js";
import { createControllerLogger, type LogSettings, logSettings } from "../logging/log-lines.js";
import type { MetricsConfig } from "../metrics/config.js";
import { loadMetricsConfig } from "../metrics/configmap.js";

/** Reads the log flags of any controller (`--loggingFormat`, `--loggingtsFormat`, `-v`, `--log-level`). */
export function logFlags(
  f: ParsedFlags,
): { ok: true; settings: LogSettings } | { ok: false; message: string } {
  return logSettings({
    loggingFormat: f.string("loggingFormat"),
    loggingtsFormat: f.string("loggingtsFormat"),
    v: f.int("v"),
    logLevel: f.optional("log-level"),
  });
}

/** Options of `openControllerLog`. */
export interface ControllerLogOptions {
  /** The `logger` name of every line, e.g. `background-controller`. */
  name: string;
  log: LogSettings;
  stderr: { write(text: string): unknown };
  clock: ServerClock;
  /** A logger given by the caller (tests, embedding) instead of lines on `stderr`. */
  logger?: Logger | undefined;
  /** The start-up warnings of the flags, written once the log is open. */
  warnings: readonly string[];
}

/** The controller's logger (the caller's, or upstream-shaped lines on `stderr`), after writing the flag warnings to it. */
export function openControllerLog(options: ControllerLogOptions): Logger {
  const { clock } = options;
  const logger =
    options.logger ??
    createControllerLogger({
      ...options.log,
      stream: options.stderr,
      name: options.name,
      now: () => clock.now(),
    });
  for (const warning of options.warnings) logger.warn({}, warning);
  return logger;
}

/** Metrics that count the client's API queries. */
export interface ClientQueryMetrics {
  clientQuery(event: QueryEvent): void;
}

/** Options of `connectController`. */
export interface ConnectControllerOptions<M extends ClientQueryMetrics> {
  /** The client type in the client metrics, e.g. `reports-controller`. */
  clientType: string;
  kubeconfig: string | undefined;
  qps: number;
  burst: number;
  /** Kyverno's namespace, where the metrics ConfigMap is. */
  namespace: string;
  metricsConfigMapName: string;
  clock: ServerClock;
  logger: Logger;
  stderr: { write(text: string): unknown };
  /** Problems of the metrics configuration that only this controller has (logged with the others). */
  configProblems?: (config: MetricsConfig, source: string) => string[];
  /** The controller's metrics, from the configuration read. */
  createMetrics: (config: MetricsConfig) => M;
  /** Abandons the ConfigMap read. */
  signal?: AbortSignal;
}

/**
 * The API client (every query counted by the metrics) and the metrics, configured from the metrics
 * ConfigMap (its problems logged as warnings). `undefined` when the cluster configuration cannot be
 * loaded: the reason is written to `stderr` and the command exits with its failure status.
 */
export async function connectController<M extends ClientQueryMetrics>(
  options: ConnectControllerOptions<M>,
): Promise<{ client: KubeClient; metrics: M } | undefined> {
  const { namespace, metricsConfigMapName: name, logger } = options;
  let metrics: M | undefined;
  let client: KubeClient;
  try {
    client = createKubeClient({
      ...(options.kubeconfig === undefined ? {} : { kubeconfigPath: options.kubeconfig }),
      qps: options.qps,
      burst: options.burst,
      clientType: options.clientType,
      onQuery: (e) => metrics?.clientQuery(e),
      clock: options.clock,
    });
  } catch (error) {
    options.stderr.write(`error: cannot load the cluster configuration: ${(error as Error).message}\n`);
    return undefined;
  }
  const loaded = await loadMetricsConfig(client, namespace, name, options.signal);
  const source = `ConfigMap ${namespace}/${name}`;
  for (const problem of [...loaded.problems, ...(options.configProblems?.(loaded.config, source) ?? [])])
    logger.warn({ problem }, "metrics configuration");
  metrics = options.createMetrics(loaded.config);
  return { client, metrics };
}
