/**
 * Shapes of the scheduled email reports: the validated `emailReports` configuration (Policy Reporter's
 * Helm values keys) and the report data built from the store before it is rendered.
 */
import type { IncludeExclude } from "../match.js";
import type { Severity, Status, StatusCounts } from "../model/types.js";

/** The two report kinds, as upstream's `summary` and `violations` CronJobs. */
export type EmailReportKind = "summary" | "violations";

/** Every report kind. */
export const EMAIL_REPORT_KINDS: readonly EmailReportKind[] = ["summary", "violations"];

/**
 * `emailReports.smtp.encryption`: `ssl` / `tls` implicit TLS (port 465), `starttls` a mandatory
 * STARTTLS upgrade, `none` plain text, `""` (the default) STARTTLS when the server offers it (upstream's
 * opportunistic default).
 */
export type SmtpEncryption = "" | "ssl" | "tls" | "starttls" | "none";

/** `emailReports.smtp`. */
export interface SmtpConfig {
  /** `secret`: a Secret in the reporter's namespace with any of host, port, username, password, from, encryption. */
  secret: string;
  host: string;
  port: number;
  username: string;
  password: string;
  /** The From address. */
  from: string;
  encryption: SmtpEncryption;
  /** Skip verification of the server certificate. */
  skipTLS: boolean;
  /** Path of a PEM file with the CA that signed the server certificate. */
  certificate: string;
}

/** `emailReports.<kind>.filter` (and of each channel). */
export interface EmailReportFilter {
  namespaces?: IncludeExclude;
  sources?: IncludeExclude;
  /** Leave out cluster-scoped results. */
  disableClusterReports?: boolean;
}

/** One recipient group: the report's own `to` / `filter`, or one of its `channels`. */
export interface EmailChannel {
  to: string[];
  filter: EmailReportFilter;
}

/** `emailReports.summary` / `emailReports.violations`. */
export interface EmailReportConfig extends EmailChannel {
  enabled: boolean;
  /** Cron expression (5 or 6 fields), evaluated in UTC. */
  schedule: string;
  /** Additional recipients with their own filters (`channels[]`). */
  channels: EmailChannel[];
}

/** `emailReports`. */
export interface EmailReportsConfig {
  /** Shown in the subject and the report (`clusterName`). */
  clusterName: string;
  /** Subject prefix (`titlePrefix`, default `Report`). */
  titlePrefix: string;
  smtp: SmtpConfig;
  summary: EmailReportConfig;
  violations: EmailReportConfig;
}

/** Counts of one scope (a namespace, or the cluster) for one source. */
export interface ScopeCounts extends StatusCounts {
  /** The namespace; `""` for cluster-scoped results. */
  namespace: string;
}

/** The summary report of one source. */
export interface SourceSummary {
  source: string;
  /** Cluster-scoped counts; undefined when there are none or cluster reports are disabled. */
  cluster: StatusCounts | undefined;
  /** Per namespace, sorted by name. */
  namespaces: ScopeCounts[];
}

/** One failing, warning or erroring result of the violations report. */
export interface Violation {
  policy: string;
  rule: string;
  status: Exclude<Status, "pass" | "skip">;
  severity: Severity | "";
  /** `Kind namespace/name` style resource label; `""` for results without a resource. */
  kind: string;
  name: string;
  message: string;
}

/** Violations of one scope (a namespace, or `""` for the cluster) of one source. */
export interface ScopeViolations {
  namespace: string;
  /** Passing results of the scope, for context. */
  passed: number;
  items: Violation[];
}

/** The violations report of one source. */
export interface SourceViolations {
  source: string;
  cluster: ScopeViolations | undefined;
  namespaces: ScopeViolations[];
}

/** Report data, ready to render. */
export type EmailReportData =
  | { kind: "summary"; sources: SourceSummary[] }
  | { kind: "violations"; sources: SourceViolations[]; truncated: number };

/** A rendered email (without envelope). */
export interface RenderedEmail {
  subject: string;
  html: string;
  text: string;
}
