/**
 * Wire types of wgpolicyk8s.io/v1alpha2 PolicyReport and ClusterPolicyReport, as Kyverno writes them
 * and Policy Reporter reads them.
 */
import type { LabelSelector, ObjectMeta } from "../policy/types.js";
import type { PolicyResult } from "../test/types.js";

/** The apiVersion of policy reports. */
export const POLICY_REPORT_API_VERSION = "wgpolicyk8s.io/v1alpha2";

/** Severity of a result, from the policy's `policies.kyverno.io/severity` annotation. */
export type PolicySeverity = "critical" | "high" | "medium" | "low" | "info";

/** A reference to the Kubernetes object a report or result is about. */
export interface ObjectReference {
  apiVersion?: string;
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  resourceVersion?: string;
  fieldPath?: string;
}

/** When a result was produced, as a protobuf Timestamp. */
export interface ReportTimestamp {
  seconds: number;
  nanos: number;
}

/** One result of a report: a policy rule applied to resources. */
export interface PolicyReportResult {
  /** The engine that produced it, `kyverno` for Kyverno. */
  source?: string;
  policy: string;
  rule?: string;
  category?: string;
  severity?: PolicySeverity;
  timestamp?: ReportTimestamp;
  result?: PolicyResult;
  scored?: boolean;
  message?: string;
  resources?: ObjectReference[];
  resourceSelector?: LabelSelector;
  properties?: Record<string, string>;
}

/** Counts of results by outcome. */
export interface PolicyReportSummary {
  pass?: number;
  fail?: number;
  warn?: number;
  error?: number;
  skip?: number;
}

/** Fields shared by PolicyReport and ClusterPolicyReport. */
interface ReportBase {
  apiVersion: typeof POLICY_REPORT_API_VERSION;
  metadata: ObjectMeta & { name: string };
  /** The object the report is about (Kyverno writes one report per resource). */
  scope?: ObjectReference;
  scopeSelector?: LabelSelector;
  summary?: PolicyReportSummary;
  results?: PolicyReportResult[];
}

/** A namespaced PolicyReport. */
export interface PolicyReport extends ReportBase {
  kind: "PolicyReport";
}

/** A cluster-wide ClusterPolicyReport. */
export interface ClusterPolicyReport extends ReportBase {
  kind: "ClusterPolicyReport";
}

/** Either kind of report; tell them apart by `kind`. */
export type AnyPolicyReport = PolicyReport | ClusterPolicyReport;
