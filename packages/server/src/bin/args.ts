/** Command-line flags of `kyverno-ts admission`, with upstream's spellings accepted beside ours. */
import { hostname } from "node:os";
import { parseArgs } from "node:util";
import type { LogLevel } from "../logger.js";
import {
  type ExceptionSettings,
  exceptionFlagsHelp,
  exceptionSettings,
} from "../policycache/exception-settings.js";

/** Parsed flags of the admission command. */
export interface AdmissionArgs {
  policies: string[];
  standalone: boolean;
  host: string;
  port: number;
  metricsPort: number;
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
  logLevel: LogLevel;
  help: boolean;
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
  /** Cluster mode: this replica's identity in the Lease. */
  identity: string;
  clientQps: number;
  clientBurst: number;
}

/** Usage text of the command. */
export const ADMISSION_USAGE = `Usage: kyverno-ts admission --policies <dir> --standalone [flags]
       kyverno-ts admission [--kubeconfig <file>] [flags]

Runs Kyverno's admission webhooks (validate, mutate, policy and exception validation) over HTTPS.
Without --standalone it runs against a cluster: policies, exceptions, Kyverno's ConfigMap and namespace
labels come from informers; certificates live in Secrets; the replica holding the "kyverno" Lease
manages certificates, webhook configurations and policy statuses; every replica serves requests.
Context entries that read the cluster (configMap, apiCall, globalReference) are loaded for each
request that needs them, within the webhook timeout; with --standalone they stay unresolved.
The reviews read in one event-loop turn are evaluated back to back after it. Unless node's flags
or NODE_OPTIONS set --max-semi-space-size, the command re-executes itself (same pid) with
--max-semi-space-size=4 --no-allocation-site-pretenuring, which keeps the heap near what it holds.

Options:
  --policies <path>            standalone: file or directory of ClusterPolicy / Policy / PolicyException (repeatable)
  --standalone                 no cluster: policies from files, self-signed CA and serving certificate
  --host <address>             address to listen on (default 0.0.0.0)
  --port <n>                   webhook HTTPS port (default 9443; 0 picks a free port)
  --metrics-port <n>           Prometheus metrics port, plain HTTP (default 8000; 0 picks a free port)
  --webhookTimeout <seconds>   webhook timeout the API server uses (default 10, max 30)
${exceptionFlagsHelp(31)}
  --config <file>              standalone: Kyverno ConfigMap (resourceFilters, excludeGroups, excludeUsernames)
  --metricsConfig <file>       standalone: kyverno-metrics ConfigMap (namespaces, bucketBoundaries, metricsExposure)
  --san <name>                 extra DNS name or IP for the serving certificate (repeatable)
  --tls-cert-file <file>       standalone: serving certificate (PEM) instead of a generated one
  --tls-key-file <file>        standalone: its private key (PEM)
  --log-level <level>          debug, info (default), warn, error or silent

Options in a cluster:
  --kubeconfig <file>          kubeconfig (default: KUBECONFIG, ~/.kube/config, then in-cluster)
  --namespace <ns>             Kyverno's namespace (default: KYVERNO_NAMESPACE or kyverno)
  --serviceName <name>         webhook Service (default: KYVERNO_SVC or kyverno-svc)
  --servicePort <n>            the Service's port (default 443)
  --configMap <name>           Kyverno's ConfigMap (default: INIT_CONFIG or kyverno)
  --metricsConfigMap <name>    metrics ConfigMap, read at start (default: METRICS_CONFIG or kyverno-metrics)
  --serverIP <ip[:port]>       outside the cluster: webhooks call https://<ip>:<port> (default: the webhook port)
  --url-override <url>         outside the cluster: webhooks call this base URL
  --leaderElection[=false]     elect a leader on the "kyverno" Lease (default true)
  --identity <name>            identity in the Lease (default: POD_NAME or the host name)
  --clientRateLimitQPS <n>     API requests per second (default 300)
  --clientRateLimitBurst <n>   API requests above the rate at once (default 300)
`;

/** Outcome of parsing: the flags, or a message for the user. */
export type ParsedArgs = { ok: true; args: AdmissionArgs } | { ok: false; message: string };

function port(value: string | undefined, fallback: number, flag: string): number | string {
  if (value === undefined) return fallback;
  const n = Number(value);
  return Number.isInteger(n) && n >= 0 && n <= 65535
    ? n
    : `${flag} must be a port number (0-65535), got "${value}"`;
}

function whole(value: string | undefined, fallback: number, flag: string): number | string {
  if (value === undefined) return fallback;
  const n = Number(value);
  return Number.isInteger(n) && n >= 0 ? n : `${flag} must be a whole number, got "${value}"`;
}

const LEVELS: readonly string[] = ["debug", "info", "warn", "error", "silent"];
const BOOLEAN_FLAGS = ["standalone", "leaderElection", "enablePolicyException", "help"];

/** Go-style `--flag=true|false` for boolean flags, as upstream's flags are written. */
function normalizeBooleans(argv: readonly string[]): string[] | string {
  const out: string[] = [];
  for (const arg of argv) {
    const m = /^--([A-Za-z]+)=(.*)$/.exec(arg);
    if (m && BOOLEAN_FLAGS.includes(m[1] as string)) {
      const value = (m[2] as string).toLowerCase();
      if (value !== "true" && value !== "false") return `--${m[1]} takes true or false, got "${m[2]}"`;
      out.push(value === "true" ? `--${m[1]}` : `--no-${m[1]}`);
    } else out.push(arg);
  }
  return out;
}

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
  const normalized = normalizeBooleans(argv);
  if (typeof normalized === "string") return { ok: false, message: normalized };
  let values: Record<string, string | boolean | string[] | undefined>;
  try {
    values = parseArgs({
      args: normalized,
      strict: true,
      allowPositionals: false,
      allowNegative: true,
      options: {
        policies: { type: "string", multiple: true },
        standalone: { type: "boolean" },
        host: { type: "string" },
        port: { type: "string" },
        "metrics-port": { type: "string" },
        metricsPort: { type: "string" },
        webhookTimeout: { type: "string" },
        enablePolicyException: { type: "boolean" },
        exceptionNamespace: { type: "string" },
        config: { type: "string" },
        metricsConfig: { type: "string" },
        metricsConfigMap: { type: "string" },
        san: { type: "string", multiple: true },
        "tls-cert-file": { type: "string" },
        "tls-key-file": { type: "string" },
        "log-level": { type: "string" },
        help: { type: "boolean", short: "h" },
        kubeconfig: { type: "string" },
        namespace: { type: "string" },
        serviceName: { type: "string" },
        servicePort: { type: "string" },
        configMap: { type: "string" },
        serverIP: { type: "string" },
        "url-override": { type: "string" },
        leaderElection: { type: "boolean" },
        identity: { type: "string" },
        clientRateLimitQPS: { type: "string" },
        clientRateLimitBurst: { type: "string" },
      },
    }).values;
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
  const str = (k: string): string | undefined =>
    typeof values[k] === "string" ? (values[k] as string) : undefined;
  const numbers = {
    port: port(str("port"), 9443, "--port"),
    metricsPort: port(str("metrics-port") ?? str("metricsPort"), 8000, "--metrics-port"),
    servicePort: port(str("servicePort"), 443, "--servicePort"),
    qps: whole(str("clientRateLimitQPS"), 300, "--clientRateLimitQPS"),
    burst: whole(str("clientRateLimitBurst"), 300, "--clientRateLimitBurst"),
  };
  for (const n of Object.values(numbers)) if (typeof n === "string") return { ok: false, message: n };
  const n = numbers as { [K in keyof typeof numbers]: number };
  const timeout = Number(str("webhookTimeout") ?? "10");
  if (!Number.isInteger(timeout) || timeout < 1 || timeout > 30)
    return { ok: false, message: `--webhookTimeout must be a whole number of seconds from 1 to 30` };
  const logLevel = str("log-level") ?? "info";
  if (!LEVELS.includes(logLevel))
    return { ok: false, message: `--log-level must be one of ${LEVELS.join(", ")}` };
  const certFile = str("tls-cert-file");
  const keyFile = str("tls-key-file");
  if ((certFile === undefined) !== (keyFile === undefined))
    return { ok: false, message: "--tls-cert-file and --tls-key-file go together" };
  const url = webhookUrl(str("url-override"), str("serverIP"));
  const serverIp = str("serverIP");
  if (url !== undefined && !url.startsWith("https://")) return { ok: false, message: url };
  return {
    ok: true,
    args: {
      policies: (values.policies as string[] | undefined) ?? [],
      standalone: values.standalone === true,
      host: str("host") ?? "0.0.0.0",
      port: n.port,
      metricsPort: n.metricsPort,
      webhookTimeoutSeconds: timeout,
      policyExceptions: exceptionSettings(values.enablePolicyException === true, str("exceptionNamespace")),
      configFile: str("config"),
      metricsConfigFile: str("metricsConfig"),
      extraHosts: (values.san as string[] | undefined) ?? [],
      tlsCertFile: certFile,
      tlsKeyFile: keyFile,
      logLevel: logLevel as LogLevel,
      help: values.help === true,
      kubeconfig: str("kubeconfig"),
      namespace: str("namespace") ?? env.KYVERNO_NAMESPACE ?? "kyverno",
      serviceName: str("serviceName") ?? env.KYVERNO_SVC ?? "kyverno-svc",
      servicePort: n.servicePort,
      configMapName: str("configMap") ?? env.INIT_CONFIG ?? "kyverno",
      metricsConfigMapName: str("metricsConfigMap") ?? env.METRICS_CONFIG ?? "kyverno-metrics",
      webhookUrl: url,
      serverHost: serverIp !== undefined && !hasPort(serverIp) ? serverIp.replace(/^\[|\]$/g, "") : undefined,
      leaderElection: values.leaderElection !== false,
      identity: str("identity") ?? env.POD_NAME ?? hostname(),
      clientQps: n.qps,
      clientBurst: n.burst,
    },
  };
}
