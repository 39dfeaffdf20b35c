/**
 * `parseReporterConfig`: validates a configuration tree (a parsed YAML file with environment
 * overrides applied) into a {@link ReporterConfig}. Keys follow Policy Reporter's Helm values; the
 * Helm values file itself is accepted (keys about the deployment, the UI and plugins are ignored).
 */
import { readUiConfig } from "../auth/config.js";
import type { ReportFilterConfig, SourceFilterConfig } from "../ingest/filters.js";
import { DETAILED_LABELS, type MetricsFilter } from "../metrics/labels.js";
import { readEmailReports } from "./email.js";
import { ConfigError, readSection, type Section, type WarningSink } from "./read.js";
import { readTargets } from "./targets.js";
import {
  type BasicAuthConfig,
  type DatabaseConfig,
  DEFAULT_LEASE_NAME,
  DEFAULT_SOURCE_FILTERS,
  type LeaderElectionConfig,
  type LoggingConfig,
  type MetricsConfig,
  type RedisConfig,
  type ReporterConfig,
} from "./types.js";

/** A non-fatal finding: an unknown key, an ignored section. */
export interface ConfigWarning {
  key: string;
  message: string;
}

/** The outcome of {@link parseReporterConfig}. */
export interface ParsedConfig {
  config: ReporterConfig;
  warnings: ConfigWarning[];
}

/** Values not in the file: the pod's identity. */
export interface ParseContext {
  /** Default identity for leader election (the host name). */
  hostname?: string;
}

function secretSource(s: Section): { secretRef?: string; mountedSecret?: string } {
  const secretRef = s.str("secretRef");
  const mountedSecret = s.str("mountedSecret");
  return { ...(secretRef ? { secretRef } : {}), ...(mountedSecret ? { mountedSecret } : {}) };
}

function readMetrics(s: Section): MetricsConfig {
  const mode = s.oneOf("mode", ["detailed", "simple", "custom"], "detailed");
  const customLabels = s.strList("customLabels");
  customLabels.forEach((label, i) => {
    if (!(DETAILED_LABELS as readonly string[]).includes(label)) {
      throw new ConfigError(
        s.at(`customLabels[${i}]`),
        `unknown label ${JSON.stringify(label)}; use ${DETAILED_LABELS.join(", ")}`,
      );
    }
  });
  if (mode === "custom" && customLabels.length === 0) {
    throw new ConfigError(s.at("customLabels"), "custom mode needs at least one label");
  }
  const f = s.section("filter");
  const filter: MetricsFilter = {};
  for (const key of ["namespaces", "policies", "severities", "status", "sources", "kinds"] as const) {
    const ie = f.includeExclude(key);
    if (ie) filter[key] = ie;
  }
  f.warnUnknown();
  const out: MetricsConfig = { enabled: s.bool("enabled", true), mode, customLabels };
  if (Object.keys(filter).length > 0) out.filter = filter;
  s.warnUnknown();
  return out;
}

function readReportFilter(s: Section): ReportFilterConfig {
  const out: ReportFilterConfig = {};
  const namespaces = s.includeExclude("namespaces");
  if (namespaces) out.namespaces = namespaces;
  if (s.bool("disableClusterReports", false)) out.disableClusterReports = true;
  s.warnUnknown();
  return out;
}

function readSourceFilter(s: Section): SourceFilterConfig {
  const selector = s.section("selector");
  const sources = selector.strList("sources");
  selector.warnUnknown();
  const out: SourceFilterConfig = {};
  if (sources.length > 0) out.selector = { sources };
  if (s.bool("uncontrolledOnly", false)) out.uncontrolledOnly = true;
  if (s.bool("disableClusterReports", false)) out.disableClusterReports = true;
  for (const key of ["kinds", "namespaces", "sources"] as const) {
    const ie = s.includeExclude(key);
    if (ie) out[key] = ie;
  }
  s.warnUnknown();
  return out;
}

function readRedis(s: Section): RedisConfig {
  const out: RedisConfig = {
    enabled: s.bool("enabled", false),
    address: s.str("address"),
    database: s.int("database", 0, { min: 0 }),
    prefix: s.str("prefix", "policy-reporter") || "policy-reporter",
    username: s.str("username"),
    password: s.str("password"),
    certificate: s.str("certificate"),
    clientCert: s.str("clientCert"),
    clientKey: s.str("clientKey"),
    skipTLS: s.bool("skipTLS", false),
    ...secretSource(s),
  };
  if (out.enabled && out.address === "")
    throw new ConfigError(s.at("address"), "required when redis.enabled is true");
  if (out.address !== "" && !/^(rediss?:\/\/.+|[^:/\s]+:\d+)$/.test(out.address)) {
    throw new ConfigError(s.at("address"), `must be host:port, not ${JSON.stringify(out.address)}`);
  }
  s.warnUnknown();
  return out;
}

function readDatabase(s: Section): DatabaseConfig {
  const type = s.oneOf("type", ["sqlite", "postgres", "mysql", "mariadb"], "sqlite");
  const out: DatabaseConfig = {
    type,
    dsn: s.str("dsn"),
    host: s.str("host"),
    database: s.str("database"),
    username: s.str("username"),
    password: s.str("password"),
    enableSSL: s.bool("enableSSL", false),
    maxOpenConnections: s.int("maxOpenConnections", 25, { min: 1 }),
    ...secretSource(s),
  };
  for (const key of ["maxIdleConnections", "connectionMaxLifetime", "connectionMaxIdleTime", "timeout"]) {
    s.int(key, 0, { min: 0 });
  }
  s.bool("metrics", false);
  const external = type !== "sqlite";
  if (external && !out.dsn && !out.host && !out.secretRef && !out.mountedSecret) {
    throw new ConfigError(s.at("dsn"), `database.type is ${type}: set database.dsn or database.host`);
  }
  s.warnUnknown();
  return out;
}

function readBasicAuth(top: Section, api: Section): BasicAuthConfig {
  // `basicAuth` (values) and `api.basicAuth` (rendered config); the latter wins key by key.
  const pick = (key: string): string => api.str(key) || top.str(key);
  const out: BasicAuthConfig = { username: pick("username"), password: pick("password") };
  const secretRef = pick("secretRef");
  const mountedSecret = pick("mountedSecret");
  if (secretRef) out.secretRef = secretRef;
  if (mountedSecret) out.mountedSecret = mountedSecret;
  if ((out.username === "") !== (out.password === "") && !secretRef && !mountedSecret) {
    const missing = out.username === "" ? "username" : "password";
    throw new ConfigError(`basicAuth.${missing}`, "basic auth needs both a username and a password");
  }
  top.warnUnknown();
  api.warnUnknown();
  return out;
}

function readLeaderElection(s: Section, hostname: string): LeaderElectionConfig {
  const out: LeaderElectionConfig = {
    enabled: s.bool("enabled", false),
    lockName: s.str("lockName", DEFAULT_LEASE_NAME) || DEFAULT_LEASE_NAME,
    podName: s.str("podName") || hostname,
    releaseOnCancel: s.bool("releaseOnCancel", true),
    leaseDuration: s.int("leaseDuration", 15, { min: 1 }),
    renewDeadline: s.int("renewDeadline", 10, { min: 1 }),
    retryPeriod: s.int("retryPeriod", 2, { min: 1 }),
  };
  s.str("namespace");
  if (!/^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/.test(out.lockName)) {
    throw new ConfigError(s.at("lockName"), `not a valid Lease name: ${JSON.stringify(out.lockName)}`);
  }
  if (out.leaseDuration <= out.renewDeadline) {
    throw new ConfigError(s.at("leaseDuration"), "must be greater than leaderElection.renewDeadline");
  }
  if (out.renewDeadline <= out.retryPeriod * 1.2) {
    throw new ConfigError(s.at("renewDeadline"), "must be greater than 1.2 × leaderElection.retryPeriod");
  }
  s.warnUnknown();
  return out;
}

function readLogging(s: Section, api: Section): LoggingConfig {
  const out: LoggingConfig = {
    logLevel: s.int("logLevel", 0, { min: -1, max: 5 }),
    encoding: s.oneOf("encoding", ["console", "json"], "console"),
    server: s.bool("server", false) || api.bool("logging", false),
  };
  s.bool("development", false);
  s.warnUnknown();
  return out;
}

/**
 * Validates a configuration tree. Throws a {@link ConfigError} (code `CONFIG_INVALID`, `key` the
 * dotted path) for the first invalid value; unknown keys inside the sections read here are warnings.
 */
export function parseReporterConfig(raw: unknown, context: ParseContext = {}): ParsedConfig {
  const warnings: ConfigWarning[] = [];
  const warn: WarningSink = (key, message) => warnings.push({ key, message });
  const root = readSection(raw, "", warn);
  const api = root.section("api");
  const port = api.has("port") ? api.int("port", 0, { min: 0, max: 65535 }) : undefined;
  const config: ReporterConfig = {
    namespace: root.str("namespace") || "default",
    worker: root.int("worker", 5, { min: 1, max: 100 }),
    dbfile: root.str("dbfile") || ":memory:",
    api: { port, basicAuth: { username: "", password: "" } },
    metrics: readMetrics(root.section("metrics")),
    reportFilter: readReportFilter(root.section("reportFilter")),
    sourceFilters: root.has("sourceFilters")
      ? root.sections("sourceFilters").map(readSourceFilter)
      : DEFAULT_SOURCE_FILTERS.map((f) => ({ ...f })),
    redis: readRedis(root.section("redis")),
    database: readDatabase(root.section("database")),
    leaderElection: readLeaderElection(root.section("leaderElection"), context.hostname ?? "policy-reporter"),
    logging: readLogging(root.section("logging"), api),
    target: readTargets(root.section("target"), warn),
    emailReports: readEmailReports(root.section("emailReports"), warn),
    ui: readUiConfig(root.section("ui")),
  };
  // `rest.enabled` is accepted for compatibility; the API is always served (probes live on it).
  root.section("rest").bool("enabled", true);
  config.api.basicAuth = readBasicAuth(root.section("basicAuth"), api.section("basicAuth"));
  return { config, warnings };
}
