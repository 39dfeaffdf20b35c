/**
 * The reporter's configuration after validation: the keys of Policy Reporter's Helm values
 * (`charts/policy-reporter/values.yaml`) that this implementation uses, with their defaults applied.
 */

import type { UiConfig } from "../auth/config.js";
import type { EmailReportsConfig } from "../email/types.js";
import type { ReportFilterConfig, SourceFilterConfig } from "../ingest/filters.js";
import type { MetricsFilter, MetricsMode } from "../metrics/labels.js";
import type { TargetsConfig } from "../targets/config/config-types.js";

/** Where a secret value comes from: a Secret in the reporter's namespace, or a JSON file. */
export interface SecretSource {
  /** `secretRef`: name of a Secret in the reporter's namespace. */
  secretRef?: string;
  /** `mountedSecret`: path of a JSON file with the same keys. */
  mountedSecret?: string;
}

/** `database`. */
export interface DatabaseConfig extends SecretSource {
  /** `""` in the values means SQLite. */
  type: "sqlite" | "postgres" | "mysql" | "mariadb";
  /** PostgreSQL URL or key=value DSN; MySQL URL or Go DSN (`user:pass@tcp(host:3306)/db`). */
  dsn: string;
  /** `host` or `host:port`. */
  host: string;
  database: string;
  username: string;
  password: string;
  enableSSL: boolean;
  maxOpenConnections: number;
}

/** `redis`. */
export interface RedisConfig extends SecretSource {
  enabled: boolean;
  /** `host:port`. */
  address: string;
  database: number;
  prefix: string;
  username: string;
  password: string;
  /** Server CA (PEM file); TLS is used when this, `skipTLS` or a client certificate is set. */
  certificate: string;
  clientCert: string;
  clientKey: string;
  skipTLS: boolean;
}

/** `basicAuth` (top level in the values, `api.basicAuth` in the rendered config; both are read). */
export interface BasicAuthConfig extends SecretSource {
  username: string;
  password: string;
}

/** `leaderElection`. Durations in seconds, as upstream. */
export interface LeaderElectionConfig {
  enabled: boolean;
  /** Name of the Lease (upstream `--lease-name`, the chart's full name: `policy-reporter`). */
  lockName: string;
  /** This replica's identity (env `POD_NAME`, else the host name). */
  podName: string;
  releaseOnCancel: boolean;
  leaseDuration: number;
  renewDeadline: number;
  retryPeriod: number;
}

/** `logging`. */
export interface LoggingConfig {
  /** zap levels: -1 debug, 0 info, 1 warn, 2 error. */
  logLevel: number;
  encoding: "console" | "json";
  /** Access logs of the API server (`logging.server` / `api.logging`). */
  server: boolean;
}

/** `metrics`. */
export interface MetricsConfig {
  /** Default true here (a bare start serves everything); the chart's default is false. */
  enabled: boolean;
  mode: MetricsMode;
  customLabels: string[];
  filter?: MetricsFilter;
}

/** The whole validated configuration. */
export interface ReporterConfig {
  /** The reporter's namespace (env `POD_NAMESPACE`): Secrets and the Lease live there. */
  namespace: string;
  /** Report processing workers (`worker`, default 5). */
  worker: number;
  /** SQLite file (`dbfile`); `:memory:` by default. */
  dbfile: string;
  api: { port: number | undefined; basicAuth: BasicAuthConfig };
  metrics: MetricsConfig;
  reportFilter: ReportFilterConfig;
  sourceFilters: SourceFilterConfig[];
  redis: RedisConfig;
  database: DatabaseConfig;
  leaderElection: LeaderElectionConfig;
  logging: LoggingConfig;
  target: TargetsConfig;
  /** `emailReports`: scheduled summary / violations emails. */
  emailReports: EmailReportsConfig;
  /** `ui`: the dashboard served at `/`, its login and access control. */
  ui: UiConfig;
}

/** The chart's default `sourceFilters`: Kyverno's reports about controlled Pods, Jobs and ReplicaSets are dropped. */
export const DEFAULT_SOURCE_FILTERS: readonly SourceFilterConfig[] = [
  {
    selector: { sources: ["kyverno", "KyvernoValidatingPolicy", "KyvernoImageValidatingPolicy"] },
    uncontrolledOnly: true,
    disableClusterReports: false,
  },
];

/** Default Lease name (the chart's full name). */
export const DEFAULT_LEASE_NAME = "policy-reporter";
