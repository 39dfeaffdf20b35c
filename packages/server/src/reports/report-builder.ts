import type { AnyPolicyReport, ObjectReference, PolicyReportResult } from "@kyverno-ts/api";
import { POLICY_REPORT_API_VERSION } from "@kyverno-ts/api";
import { reportSummary } from "@kyverno-ts/engine";

/** Labels Kyverno puts on the reports it owns (so other tools can tell them apart). */
export const REPORT_LABELS = { "app.kubernetes.io/managed-by": "kyverno" } as const;

/** Bounds that keep a report well under what etcd accepts (1.5 MiB per object). */
export interface ReportLimits {
  /** Results kept per report; the rest are dropped (failures first are kept). Default 1000. */
  maxResults: number;
  /** Characters kept per message. Default 4096. */
  maxMessageLength: number;
}

/** Upstream-compatible defaults for `ReportLimits`. */
export const DEFAULT_REPORT_LIMITS: ReportLimits = { maxResults: 1000, maxMessageLength: 4096 };

/** The identity of one result: a report never holds two results for the same policy and rule. */
export function resultKey(r: PolicyReportResult): string {
  return `${r.source ?? ""}\u0000${r.policy}\u0000${r.rule ?? ""}`;
}

const SEVERITY_ORDER: Record<string, number> = { fail: 0, error: 1, warn: 2, skip: 3, pass: 4 };

/**
 * Merges result sets: later sets replace earlier results with the same key (so the newest
 * evaluation of a rule wins, whether it came from a background scan or an admission request),
 * then sorts by policy and rule so the report is stable across reconciles.
 */
export function mergeResults(...sets: ReadonlyArray<readonly PolicyReportResult[]>): PolicyReportResult[] {
  const byKey = new Map<string, PolicyReportResult>();
  for (const set of sets) for (const r of set) byKey.set(resultKey(r), r);
  return [...byKey.values()].sort((a, b) =>
    a.policy === b.policy ? (a.rule ?? "").localeCompare(b.rule ?? "") : a.policy.localeCompare(b.policy),
  );
}

function bounded(results: readonly PolicyReportResult[], limits: ReportLimits): PolicyReportResult[] {
  const trimmed = results.map((r) =>
    r.message !== undefined && r.message.length > limits.maxMessageLength
      ? { ...r, message: `${r.message.slice(0, limits.maxMessageLength - 3)}...` }
      : r,
  );
  if (trimmed.length <= limits.maxResults) return trimmed;
  // Keep the results people act on (failures, errors) when a report has to be cut.
  return [...trimmed]
    .sort((a, b) => (SEVERITY_ORDER[a.result ?? "pass"] ?? 5) - (SEVERITY_ORDER[b.result ?? "pass"] ?? 5))
    .slice(0, limits.maxResults);
}

/**
 * Builds the report of one resource as current upstream does: a PolicyReport in the resource's
 * namespace (a ClusterPolicyReport for cluster-scoped resources) named after the resource uid, with
 * `scope` pointing at it, an owner reference so Kubernetes deletes it with the resource, the
 * results (deduplicated, bounded) and an exact summary.
 */
export function buildResourceReport(
  resource: ObjectReference & { uid: string },
  results: readonly PolicyReportResult[],
  limits: ReportLimits = DEFAULT_REPORT_LIMITS,
): AnyPolicyReport {
  const kept = bounded(mergeResults(results), limits);
  const metadata = {
    name: resource.uid,
    ...(resource.namespace ? { namespace: resource.namespace } : {}),
    labels: { ...REPORT_LABELS },
    ownerReferences: [
      {
        apiVersion: resource.apiVersion ?? "v1",
        kind: resource.kind ?? "",
        name: resource.name ?? "",
        uid: resource.uid,
      },
    ],
  };
  const base = {
    apiVersion: POLICY_REPORT_API_VERSION as typeof POLICY_REPORT_API_VERSION,
    metadata,
    scope: resource,
    results: kept,
    summary: reportSummary(kept),
  };
  return resource.namespace ? { ...base, kind: "PolicyReport" } : { ...base, kind: "ClusterPolicyReport" };
}

/** True when two reports carry the same results and summary (no write needed). */
export function sameReportContent(a: AnyPolicyReport, b: AnyPolicyReport): boolean {
  const strip = (r: PolicyReportResult) => ({ ...r, timestamp: undefined });
  return (
    JSON.stringify((a.results ?? []).map(strip)) === JSON.stringify((b.results ?? []).map(strip)) &&
    JSON.stringify(a.summary) === JSON.stringify(b.summary)
  );
}
