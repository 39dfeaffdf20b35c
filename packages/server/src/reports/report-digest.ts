/**
 * A short digest of what a report says (its scope, its results without timestamps, and its
 * summary), so the controller can tell whether a report needs writing without keeping every report in
 * memory. It covers what `sameReportContent` compares, but reads the fields of a result by name, so
 * the order in which the API server returns them does not matter, and it is cheap enough to compute
 * for every reconcile.
 */
import { hash } from "node:crypto";
import type { AnyPolicyReport, ObjectReference, PolicyReportResult } from "@kyverno-ts/api";

const ref = (r: ObjectReference | undefined) =>
  r === undefined ? null : [r.apiVersion, r.kind, r.namespace, r.name, r.uid, r.resourceVersion, r.fieldPath];

const sorted = (record: Record<string, string> | undefined) =>
  record === undefined ? null : Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

function fields(r: PolicyReportResult): unknown[] {
  const selector = r.resourceSelector === undefined ? null : JSON.stringify(r.resourceSelector);
  return [
    r.source,
    r.policy,
    r.rule,
    r.result,
    r.message,
    r.category,
    r.severity,
    r.scored,
    sorted(r.properties),
    r.resources?.map(ref) ?? null,
    selector,
  ];
}

/** The content digest of a report: equal digests mean the same scope, results (timestamps aside) and summary. */
export function reportDigest(report: Pick<AnyPolicyReport, "results" | "summary" | "scope">): string {
  const s = report.summary ?? {};
  const content = [
    ref(report.scope),
    [s.pass, s.fail, s.warn, s.error, s.skip],
    (report.results ?? []).map(fields),
  ];
  return hash("sha1", JSON.stringify(content), "base64");
}
