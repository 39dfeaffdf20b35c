/** Command-line flags of `kyverno-ts admission`, read through the flag table (`../flags/catalog.ts`). */
import { hostname } from "node:os";
import type { EvaluationLimits } from "@kyverno-ts/engine";
import type { RequestedScheduling } from "../evaluation-pool/idle-scheduling.js";
import { type EventSettings, eventSettings } from "../events/cluster-events.js";
import { parseFlags } from "../flags/parse.js";
import type { LogSettings } from "../logging/log-lines.js";
import { type ExceptionSettings, exceptionSettings } from "../policycache/exception-settings.js";
import { parseEnableReporting, type ReportingSettings } from "../reports/reporting.js";
import { logFlags } from "./controller-start.js";
import { evaluationFlags, inlineTimeFlag, workerSchedulingFlag } from "./evaluation-flags.js";

/** Parsed flags of the admission command. */
export interface AdmissionArgs {
  policies: string[];
  standalone: boolean;
  host: string;
  /** `--webhookServerPort` (alias `--port`). */
  port: number;
  /** `--metricsPort` (alias `--metrics-port`). */
  metricsPort: number;
  /** `--disableMetrics`: no metrics server. */
  disableMetrics: boolean;
  /** `--admissionReports`: publish audit results as ephemeral reports for the reports controller. */
  admissionReports: boolean;
  webhookTimeoutSeconds: number;
  /** `--enablePolicyException` and `--exceptionNamespace`. */
  policyExceptions: ExceptionSettings;
  /** A file holding Kyverno's ConfigMap (resourceFilters, excludeGroups, ...). */
  configFile: string | undefined;
  /** Standalone: a file holding the `kyverno-metrics` ConfigMap. */
  metricsConfigFile: string | undefined;
  /** Extra DNS names / IPs for the generated serving certificate. */
  extraHosts: string[];
  tlsCertFile: string | undefined;
  tlsKeyFile: string | undefined;
  /** `--loggingFormat`, `--loggingtsFormat`, `-v` and `--log-level`. */
  log: LogSettings;
  help: boolean;
  /** One line per given flag that has no effect in kyverno-ts (logged at start). */
  warnings: string[];
  /** Cluster mode: kubeconfig file (default: KUBECONFIG, ~/.kube/config, then in-cluster). */
  kubeconfig: string | undefined;
  /** Cluster mode: Kyverno's namespace (Secrets, ConfigMap, Lease). */
  namespace: string;
  /** Cluster mode: the webhook Service. */
  serviceName: string;
  /** Cluster mode: the Service's port. */
  servicePort: number;
  /** Cluster mode: Kyverno's ConfigMap. */
  configMapName: string;
  /** Cluster mode: the metrics ConfigMap (`kyverno-metrics`), read at start. */
  metricsConfigMapName: string;
  /** Cluster mode, outside the cluster: the base URL the API server calls (`--url-override`, `--serverIP ip:port`). */
  webhookUrl: string | undefined;
  /** Cluster mode, outside the cluster: `--serverIP` without a port (the webhook port is added once known). */
  serverHost: string | undefined;
  /** Cluster mode: elect a leader on the `kyverno` Lease (false: this replica leads alone). */
  leaderElection: boolean;
  /** `--leaderElectionRetryPeriod`, when given. */
  leaderRetryPeriodMs: number | undefined;
  /** Cluster mode: this replica's identity in the Lease. */
  identity: string;
  clientQps: number;
  clientBurst: number;
  /** `--evaluationWorkers`: evaluation worker threads (0: evaluate on the serving thread). */
  evaluationWorkers: number;
  /** `--evaluationForeachElements`, `--evaluationPatternNodes`, … (only the given ones). */
  evaluationLimits: Partial<EvaluationLimits>;
  /** `--evaluationInlineTime` in milliseconds. */
  evaluationInlineMs: number;
  /** `--evaluationWorkerScheduling`: how the workers yield the CPU to the serving thread. */
  evaluationWorkerScheduling: RequestedScheduling;
  /** `--forceFailurePolicyIgnore`: every policy is treated as `failurePolicy: Ignore`. */
  forceFailurePolicyIgnore: boolean;
  /** Cluster mode: `--omitEvents`, `--maxQueuedEvents`, `--eventsRateLimitQPS`, `--eventsRateLimitBurst`. */
  events: EventSettings;
  /** `--enableReporting`: validate and mutate results are handed to the reports when it names them. */
  reporting: ReportingSettings;
  /**
   * Cluster mode: `--backgroundServiceAccountName`, the background controller's user whose
   * permissions generate and mutate-existing policies are checked against (empty: the
   * `kyverno-background-controller` ServiceAccount of `--namespace`).
   */
  backgroundServiceAccountName: string;
}

/** What `kyverno-ts admission --help` says before the flags. */
export const ADMISSION_DESCRIPTION = `Runs Kyverno's admission webhooks (validate, mutate, policy and exception validation) over HTTPS.
Without --standalone it runs against a cluster: policies, exceptions, Kyverno's ConfigMap and namespace
labels come from informers; certificates live in Secrets; the replica holding the "kyverno" Lease
manages certificates, webhook configurations and policy statuses; every replica serves requests.
Context entries that read the cluster (configMap, apiCall, globalReference) are loaded for each
request that needs them, within the webhook timeout; with --standalone they stay unresolved.
The reviews read in one event-loop turn are evaluated back to back after it. Unless node's flags
or NODE_OPTIONS set --max-semi-space-size, the command re-executes itself (same pid) with
--max-semi-space-size=4 --no-allocation-site-pretenuring, which keeps the heap near what it holds.`;

/** Outcome of parsing: the flags, or a message for the user. */
export type ParsedArgs = { ok: true; args: AdmissionArgs } | { ok: false; message: string };

function port(n: number, flag: string): number | string {
  return n >= 0 && n <= 65535 ? n : `${flag} must be a port number (0-65535), got "${n}"`;
}

/** An empty file flag (`--kubeconfig=`) names no file. */
const file = (value: string | undefined) => (value === "" ? undefined : value);

/** The webhook base URL of `--url-override` or `--serverIP ip:port` (IPv6 in brackets), validated. */
function webhookUrl(urlOverride: string | undefined, serverIp: string | undefined) {
  if (urlOverride !== undefined) {
    try {
      const url = new URL(urlOverride);
      if (url.protocol !== "https:") return "--url-override must be an https:// URL";
      return urlOverride.replace(/\/+$/, "");
    } catch {
      return `--url-override is not a URL: "${urlOverride}"`;
    }
  }
  return serverIp !== undefined && hasPort(serverIp) ? `https://${serverIp}` : undefined;
}

/** `1.2.3.4:443` or `[::1]:443`. */
function hasPort(serverIp: string): boolean {
  return /^\[.*\]:\d+$|^[^:[\]]+:\d+$/.test(serverIp);
}

/** Parses the command's arguments (everything after `admission`); `env` supplies upstream's defaults. */
export function parseAdmissionArgs(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>> = process.env,
): ParsedArgs {
  const parsed = parseFlags("admission", argv, env);
  if (!parsed.ok) return parsed;
  const f = parsed.flags;
  const ports = {
    port: port(f.int("webhookServerPort"), "--webhookServerPort"),
    metricsPort: port(f.int("metricsPort"), "--metricsPort"),
    servicePort: port(f.int("servicePort"), "--servicePort"),
  };
  for (const n of Object.values(ports)) if (typeof n === "string") return { ok: false, message: n };
  for (const name of ["clientRateLimitQPS", "clientRateLimitBurst"])
    if (f.float(name) < 0) return { ok: false, message: `--${name} must not be negative` };
  const events = eventSettings({
    omitEvents: f.string("omitEvents"),
    maxQueuedEvents: f.int("maxQueuedEvents"),
    eventsRateLimitQPS: f.float("eventsRateLimitQPS"),
    eventsRateLimitBurst: f.int("eventsRateLimitBurst"),
  });
  if (!events.ok) return events;
  const reporting = parseEnableReporting(f.string("enableReporting"));
  if (!reporting.ok) return reporting;
  const workers = f.int("evaluationWorkers");
  if (!(workers >= 0 && workers <= 64))
    return { ok: false, message: "--evaluationWorkers must be a whole number from 0 to 64" };
  const budgets = evaluationFlags(f, ["foreachElements", "patternNodes", "jmespathSteps", "celCost"]);
  if (!budgets.ok) return budgets;
  const inline = inlineTimeFlag(f);
  if (!inline.ok) return inline;
  const scheduling = workerSchedulingFlag(f);
  if (!scheduling.ok) return scheduling;
  const timeout = f.int("webhookTimeout");
  if (timeout < 1 || timeout > 30)
    return { ok: false, message: "--webhookTimeout must be a whole number of seconds from 1 to 30" };
  const log = logFlags(f);
  if (!log.ok) return log;
  const certFile = file(f.optional("tls-cert-file"));
  const keyFile = file(f.optional("tls-key-file"));
  if ((certFile === undefined) !== (keyFile === undefined))
    return { ok: false, message: "--tls-cert-file and --tls-key-file go together" };
  const serverIp = file(f.optional("serverIP"));
  const url = webhookUrl(file(f.optional("url-override")), serverIp);
  if (url !== undefined && !url.startsWith("https://")) return { ok: false, message: url };
  const p = ports as { [K in keyof typeof ports]: number };
  return {
    ok: true,
    args: {
      policies: f.list("policies"),
      standalone: f.bool("standalone"),
      host: f.string("host"),
      port: p.port,
      metricsPort: p.metricsPort,
      disableMetrics: f.bool("disableMetrics"),
      admissionReports: f.bool("admissionReports"),
      webhookTimeoutSeconds: timeout,
      policyExceptions: exceptionSettings(f.bool("enablePolicyException"), f.optional("exceptionNamespace")),
      configFile: file(f.optional("config")),
      metricsConfigFile: file(f.optional("metricsConfig")),
      extraHosts: f.list("san"),
      tlsCertFile: certFile,
      tlsKeyFile: keyFile,
      log: log.settings,
      help: f.help,
      warnings: f.warnings(),
      kubeconfig: file(f.optional("kubeconfig")),
      namespace: f.string("namespace"),
      serviceName: f.string("serviceName"),
      servicePort: p.servicePort,
      configMapName: f.string("configMap"),
      metricsConfigMapName: f.string("metricsConfigMap"),
      webhookUrl: url,
      serverHost: serverIp !== undefined && !hasPort(serverIp) ? serverIp.replace(/^\[|\]$/g, "") : undefined,
      leaderElection: f.bool("leaderElection"),
      leaderRetryPeriodMs: f.given("leaderElectionRetryPeriod")
        ? f.durationMs("leaderElectionRetryPeriod")
        : undefined,
      identity: f.optional("identity") || hostname(),
      clientQps: f.float("clientRateLimitQPS"),
      clientBurst: f.int("clientRateLimitBurst"),
      evaluationWorkers: workers,
      evaluationLimits: budgets.limits,
      evaluationInlineMs: inline.ms,
      evaluationWorkerScheduling: scheduling.scheduling,
      forceFailurePolicyIgnore: f.bool("forceFailurePolicyIgnore"),
      events: events.settings,
      reporting: reporting.settings,
      backgroundServiceAccountName: f.string("backgroundServiceAccountName"),
    },
  };
}
