/** Command-line flags of `kyverno-ts admission`, with upstream's spellings accepted beside ours. */
import { parseArgs } from "node:util";
import type { LogLevel } from "../logger.js";

/** Parsed flags of the admission command. */
export interface AdmissionArgs {
  policies: string[];
  standalone: boolean;
  host: string;
  port: number;
  metricsPort: number;
  webhookTimeoutSeconds: number;
  exceptionNamespace: string | undefined;
  /** A file holding Kyverno's ConfigMap (resourceFilters, excludeGroups, ...). */
  configFile: string | undefined;
  /** Extra DNS names / IPs for the generated serving certificate. */
  extraHosts: string[];
  tlsCertFile: string | undefined;
  tlsKeyFile: string | undefined;
  logLevel: LogLevel;
  help: boolean;
}

/** Usage text of the command. */
export const ADMISSION_USAGE = `Usage: kyverno-ts admission --policies <dir> --standalone [flags]

Runs Kyverno's admission webhooks (validate, mutate, policy and exception validation) over HTTPS.

Flags:
  --policies <path>            file or directory of ClusterPolicy / Policy / PolicyException (repeatable)
  --standalone                 no cluster: policies from files, self-signed CA and serving certificate
  --host <address>             address to listen on (default 0.0.0.0)
  --port <n>                   webhook HTTPS port (default 9443; 0 picks a free port)
  --metrics-port <n>           Prometheus metrics port, plain HTTP (default 8000; 0 picks a free port)
  --webhookTimeout <seconds>   webhook timeout the API server uses (default 10, max 30)
  --exceptionNamespace <ns>    namespace PolicyExceptions are accepted from (default: all)
  --config <file>              Kyverno ConfigMap (resourceFilters, excludeGroups, excludeUsernames)
  --san <name>                 extra DNS name or IP for the generated certificate (repeatable)
  --tls-cert-file <file>       serving certificate (PEM) instead of a generated one
  --tls-key-file <file>        its private key (PEM)
  --log-level <level>          debug, info (default), warn, error or silent
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

const LEVELS: readonly string[] = ["debug", "info", "warn", "error", "silent"];

/** Parses the command's arguments (everything after `admission`). */
export function parseAdmissionArgs(argv: readonly string[]): ParsedArgs {
  let values: Record<string, string | boolean | string[] | undefined>;
  try {
    values = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        policies: { type: "string", multiple: true },
        standalone: { type: "boolean" },
        host: { type: "string" },
        port: { type: "string" },
        "metrics-port": { type: "string" },
        metricsPort: { type: "string" },
        webhookTimeout: { type: "string" },
        exceptionNamespace: { type: "string" },
        config: { type: "string" },
        san: { type: "string", multiple: true },
        "tls-cert-file": { type: "string" },
        "tls-key-file": { type: "string" },
        "log-level": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    }).values;
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
  const str = (k: string): string | undefined =>
    typeof values[k] === "string" ? (values[k] as string) : undefined;
  const webhookPort = port(str("port"), 9443, "--port");
  const metricsPort = port(str("metrics-port") ?? str("metricsPort"), 8000, "--metrics-port");
  if (typeof webhookPort === "string") return { ok: false, message: webhookPort };
  if (typeof metricsPort === "string") return { ok: false, message: metricsPort };
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
  return {
    ok: true,
    args: {
      policies: (values.policies as string[] | undefined) ?? [],
      standalone: values.standalone === true,
      host: str("host") ?? "0.0.0.0",
      port: webhookPort,
      metricsPort,
      webhookTimeoutSeconds: timeout,
      exceptionNamespace: str("exceptionNamespace"),
      configFile: str("config"),
      extraHosts: (values.san as string[] | undefined) ?? [],
      tlsCertFile: certFile,
      tlsKeyFile: keyFile,
      logLevel: logLevel as LogLevel,
      help: values.help === true,
    },
  };
}
