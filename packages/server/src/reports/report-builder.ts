import type { AnyPolicyReport, ObjectReference, PolicyReportResult } from "@kyverno-ts/api";
import { POLICY_REPORT_API_VERSION } from "@kyverno-ts/api";
import { reportSummary } from "@kyverno-ts/engine";

/** Labels Kyverno puts on the reports it owns (so other tools can tell them apart). */
export const REPORT_LABELS = { "app.kubernetes.io/managed-by": "kyverno" } as const;

/**
 * Bounds that keep a report well under what etcd accepts (1.5 MiB per object). When results are
 * dropped, the ones kept are chosen by severity (fail, error, warn, skip, pass; then policy and rule),
 * the summary still counts every result, and the `TRUNCATED_ANNOTATION` says how many were kept.
 */
export interface ReportLimits {
  /** Results kept per report; the rest are dropped (failures first are kept). Default 1000. */
  maxResults: number;
  /** Characters kept per message. Default 4096. */
  maxMessageLength: number;
  /** Bytes of the results as JSON (UTF-8); results that do not fit are dropped. Default 1,000,000. */
  maxResultBytes?: number;
}

/** Upstream-compatible defaults for `ReportLimits`. */
export const DEFAULT_REPORT_LIMITS: ReportLimits = {
  maxResults: 1000,
  maxMessageLength: 4096,
  maxResultBytes: 1_000_000,
};

/** Annotation on a report whose results were cut to its limits: "kept K of N results (…)". */
export const TRUNCATED_ANNOTATION = "kyverno-ts.io/report-truncated";

/**
 * Annotation of a report: the digest of its scan's inputs bound to its content (`report-writer.ts`),
 * so a later scan with the same inputs, also after a restart, knows the report already says what an
 * evaluation would.
 */
export const SCAN_INPUTS_ANNOTATION = "kyverno-ts.io/scan-inputs";

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

const bySeverity = (results: readonly PolicyReportResult[]): PolicyReportResult[] =>
  [...results].sort(
    (a, b) => (SEVERITY_ORDER[a.result ?? "pass"] ?? 5) - (SEVERITY_ORDER[b.result ?? "pass"] ?? 5),
  );

const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value));

/** Characters of a result's strings (fields and properties), plus room for the rest of its JSON. */
function resultChars(r: PolicyReportResult): number {
  let n =
    256 + r.policy.length + (r.rule?.length ?? 0) + (r.message?.length ?? 0) + (r.category?.length ?? 0);
  const properties = r.properties;
  if (properties !== undefined) for (const k in properties) n += k.length + (properties[k]?.length ?? 0) + 8;
  if (r.resources !== undefined || r.resourceSelector !== undefined)
    n += JSON.stringify([r.resources, r.resourceSelector]).length;
  return n;
}

/**
 * Whether the results surely fit the budget without serializing them: a JSON character is at most 6
 * bytes of UTF-8 (`\u0000` escapes), so 6 × the characters bounds the bytes.
 */
const surelyFits = (results: readonly PolicyReportResult[], budget: number): boolean =>
  results.reduce((n, r) => n + resultChars(r), 2) * 6 <= budget;

/** The results a report keeps (deterministically: same input, same output) and whether any were cut. */
function bounded(
  results: readonly PolicyReportResult[],
  limits: ReportLimits,
): { kept: PolicyReportResult[]; truncated: boolean } {
  const trimmed = results.map((r) =>
    r.message !== undefined && r.message.length > limits.maxMessageLength
      ? { ...r, message: `${r.message.slice(0, limits.maxMessageLength - 3)}...` }
      : r,
  );
  // Keep the results people act on (failures, errors) when a report has to be cut.
  let kept = trimmed.length <= limits.maxResults ? trimmed : bySeverity(trimmed).slice(0, limits.maxResults);
  const budget = limits.maxResultBytes ?? DEFAULT_REPORT_LIMITS.maxResultBytes ?? Infinity;
  if (!surelyFits(kept, budget) && jsonBytes(kept) > budget) {
    const fitting: PolicyReportResult[] = [];
    let used = 2; // the brackets of the array
    for (const r of kept === trimmed ? bySeverity(kept) : kept) {
      const size = jsonBytes(r) + 1; // and its comma
      if (used + size > budget) continue;
      fitting.push(r);
      used += size;
    }
    kept = fitting;
  }
  return { kept, truncated: kept.length < results.length };
}

/**
 * Builds the report of one resource as current upstream does: a PolicyReport in the resource's
 * namespace (a ClusterPolicyReport for cluster-scoped resources) named after the resource uid, with
 * `scope` pointing at it, an owner reference so Kubernetes deletes it with the resource, the
 * results (deduplicated, bounded by `limits`) and a summary counting every result, also those a
 * limit left out (then `TRUNCATED_ANNOTATION` says so).
 */
export function buildResourceReport(
  resource: ObjectReference & { uid: string },
  results: readonly PolicyReportResult[],
  limits: ReportLimits = DEFAULT_REPORT_LIMITS,
  /** `merged`: the results are `mergeResults`' output already (merging them again would give them back). */
  options: { merged?: boolean } = {},
): AnyPolicyReport {
  const all = options.merged === true ? results : mergeResults(results);
  const { kept, truncated } = bounded(all, limits);
  const limit = `limits: ${limits.maxResults} results, ${limits.maxResultBytes ?? DEFAULT_REPORT_LIMITS.maxResultBytes} bytes`;
  const metadata = {
    name: resource.uid,
    ...(resource.namespace ? { namespace: resource.namespace } : {}),
    labels: { ...REPORT_LABELS },
    ...(truncated
      ? { annotations: { [TRUNCATED_ANNOTATION]: `kept ${kept.length} of ${all.length} results (${limit})` } }
      : {}),
    ownerReferences: [
      {
        apiVersion: resource.apiVersion ?? "v1",
        kind: resource.kind ?? "",
        name: resource.name ?? "",
        uid: resource.uid,
      },
    ],
  };
  // `kind` before the results: the writer's create decodes only the answer's apiVersion, kind and
  // metadata, and stops reading its text once it has them (the API server keeps the key order).
  return {
    apiVersion: POLICY_REPORT_API_VERSION,
    kind: resource.namespace ? "PolicyReport" : "ClusterPolicyReport",
    metadata,
    scope: resource,
    results: kept,
    summary: reportSummary(all),
  };
}

/** True when two reports carry the same results and summary (no write needed). */
export function sameReportContent(a: AnyPolicyReport, b: AnyPolicyReport): boolean {
  const strip = (r: PolicyReportResult) => ({ ...r, timestamp: undefined });
  return (
    JSON.stringify((a.results ?? []).map(strip)) === JSON.stringify((b.results ?? []).map(strip)) &&
    JSON.stringify(a.summary) === JSON.stringify(b.summary)
  );
}
