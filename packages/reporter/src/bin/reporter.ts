/**
 * `kyverno-ts reporter`: Policy Reporter. Loads the configuration (`--config`, environment
 * overrides), connects to the cluster (`--kubeconfig`, else `KUBECONFIG` / `~/.kube/config` /
 * in-cluster), serves the API and `/metrics`, and runs until SIGINT / SIGTERM (or `signal`).
 */
import { hostname } from "node:os";
import { createKubeClient, type KubeClient } from "@kyverno-ts/kube";
import { createReporterLogger } from "../app/logging.js";
import { type RunningReporter, startReporter } from "../app/reporter.js";
import { type LoadedConfig, loadReporterConfig } from "../config/load.js";
import { isConfigError } from "../config/read.js";
import { isReporterError } from "../errors.js";
import type { Logger } from "../logger.js";

/** Anything text can be written to (`process.stdout`, a test buffer). */
export interface TextOutput {
  write(text: string): unknown;
}

/** What a started reporter tells its caller (tests use it instead of parsing output). */
export interface ReporterReadyInfo {
  url: string;
  port: number;
  metricsPort: number | undefined;
  reporter: RunningReporter;
}

/** Options of {@link runReporterCommand}. */
export interface ReporterCommandOptions {
  /** Arguments after `reporter`. */
  args: readonly string[];
  stdout: TextOutput;
  /** Logs go here. */
  stderr: TextOutput;
  /** Stops the reporter; when omitted, the first SIGINT or SIGTERM does. */
  signal?: AbortSignal;
  /** Environment for configuration overrides (default `process.env`). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Replaces the logger built from `logging`. */
  logger?: Logger;
  /** Called once the API listens (before the initial sync is done). */
  onStarted?: (info: ReporterReadyInfo) => void;
}

/** Exit statuses: 0 after a clean stop, 1 when the reporter could not run, 2 for unusable flags or configuration. */
export const ReporterExit = { Ok: 0, Failed: 1, InputError: 2 } as const;

/** Usage text of the command, in the layout of the other server commands' `--help`. */
export const REPORTER_USAGE = `Usage: kyverno-ts reporter [flags]

Runs Policy Reporter: ingests PolicyReports and ClusterPolicyReports (wgpolicyk8s.io) from the cluster
into a store (SQLite, PostgreSQL or MariaDB), serves its REST API (/v1, /v2), the dashboard, /metrics,
/healthz and /ready, and sends notifications to the configured targets. It reads Policy Reporter's Helm
values file (--config) for database, metrics, target, redis, leaderElection, ui and emailReports; the
environment variables Policy Reporter knows (e.g. METRICS_ENABLED) override it. With leaderElection
enabled and a shared database, only the replica holding the Lease writes; every replica serves the API.

Options:
  --config <file>        configuration: Policy Reporter's values (default: none, every setting at its default)
  --kubeconfig <file>    cluster credentials (default: KUBECONFIG, ~/.kube/config, then in-cluster)
  --host <address>       address the API (and --metrics-port) listen on (default 0.0.0.0)
  --port <n>             API and dashboard port (default: api.port of --config, else 8080; 0 picks a free port)
  --metrics-port <n>     serve /metrics on its own port (default: on the API port, when metrics.enabled)
  --sqlite <file>        SQLite database file, or :memory: (default: dbfile of --config, else :memory:)
  --lease-name <name>    leader election Lease (default: leaderElection.lockName, else policy-reporter)
  -h, --help             display help for command

Examples:
  $ kyverno-ts reporter --kubeconfig ~/.kube/config --sqlite /tmp/reports.db
  $ kyverno-ts reporter --config values.yaml --port 8080 --metrics-port 8081
`;

interface Flags {
  config?: string;
  host?: string;
  kubeconfig?: string;
  port?: number;
  metricsPort?: number;
  sqlite?: string;
  leaseName?: string;
  help?: boolean;
}

const VALUE_FLAGS: Readonly<Record<string, keyof Flags>> = {
  "--config": "config",
  "--host": "host",
  "-c": "config",
  "--kubeconfig": "kubeconfig",
  "-k": "kubeconfig",
  "--port": "port",
  "-p": "port",
  "--metrics-port": "metricsPort",
  "--sqlite": "sqlite",
  "--dbfile": "sqlite",
  "--lease-name": "leaseName",
};

/** Parses the flags; returns an error message for unknown or incomplete ones. */
export function parseReporterArgs(args: readonly string[]): Flags | string {
  const flags: Flags = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? "";
    if (arg === "--help" || arg === "-h") return { help: true };
    const [name, inline] =
      arg.startsWith("--") && arg.includes("=")
        ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)]
        : [arg, undefined];
    const key = VALUE_FLAGS[name];
    if (key === undefined) return `unknown flag ${JSON.stringify(arg)}`;
    const value = inline ?? args[++i];
    if (value === undefined || value === "") return `${name} needs a value`;
    if (key === "port" || key === "metricsPort") {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 0 || n > 65535) return `${name}: not a port: ${JSON.stringify(value)}`;
      flags[key] = n;
    } else flags[key as "config" | "host" | "kubeconfig" | "sqlite" | "leaseName"] = value;
  }
  return flags;
}

function untilStopped(signal: AbortSignal | undefined): Promise<void> {
  if (signal !== undefined) {
    return signal.aborted
      ? Promise.resolve()
      : new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
  }
  return new Promise((resolve) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      resolve();
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
}

/** Runs the reporter command; resolves with the exit status once stopped. */
export async function runReporterCommand(options: ReporterCommandOptions): Promise<number> {
  const { stdout, stderr } = options;
  const flags = parseReporterArgs(options.args);
  if (typeof flags === "string") {
    stderr.write(`error: ${flags}\n\n${REPORTER_USAGE}`);
    return ReporterExit.InputError;
  }
  if (flags.help) {
    stdout.write(REPORTER_USAGE);
    return ReporterExit.Ok;
  }
  const env = options.env ?? process.env;
  let loaded: LoadedConfig;
  try {
    loaded = loadReporterConfig({
      ...(flags.config !== undefined ? { file: flags.config } : {}),
      env,
      hostname: hostname(),
    });
  } catch (error) {
    stderr.write(`invalid configuration: ${error instanceof Error ? error.message : String(error)}\n`);
    return ReporterExit.InputError;
  }
  const config = loaded.config;
  if (flags.leaseName !== undefined) config.leaderElection.lockName = flags.leaseName;
  const logger = options.logger ?? createReporterLogger(config.logging, stderr);
  for (const w of loaded.warnings) logger.warn({ key: w.key }, `configuration: ${w.message}`);

  let client: KubeClient;
  try {
    client = createKubeClient(flags.kubeconfig !== undefined ? { kubeconfigPath: flags.kubeconfig } : {});
  } catch (error) {
    stderr.write(
      `cannot load cluster credentials: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    return ReporterExit.InputError;
  }
  const stopped = untilStopped(options.signal);
  let reporter: RunningReporter;
  try {
    reporter = await startReporter({
      config,
      client,
      logger,
      ...(flags.host !== undefined ? { host: flags.host } : {}),
      ...(flags.port !== undefined ? { port: flags.port } : {}),
      ...(flags.metricsPort !== undefined ? { metricsPort: flags.metricsPort } : {}),
      ...(flags.sqlite !== undefined ? { sqlitePath: flags.sqlite } : {}),
    });
  } catch (error) {
    client.close();
    const message = error instanceof Error ? error.message : String(error);
    if (isConfigError(error)) {
      stderr.write(`invalid configuration: ${message}\n`);
      return ReporterExit.InputError;
    }
    const code = isReporterError(error) ? ` (${error.code})` : "";
    stderr.write(`reporter failed to start${code}: ${message}\n`);
    return ReporterExit.Failed;
  }
  stdout.write(`Policy Reporter API listening on ${reporter.url}\n`);
  options.onStarted?.({
    url: reporter.url,
    port: reporter.port,
    metricsPort: reporter.metricsPort,
    reporter,
  });
  await stopped;
  await reporter.stop();
  client.close();
  stdout.write("Policy Reporter stopped.\n");
  return ReporterExit.Ok;
}
