/**
 * A short digest of what a report says (its results without timestamps, and its summary), so the
 * controller can tell whether a report needs writing without keeping every report in memory. The
 * same content as `sameReportContent` compares, but independent of key order, since the API server
 * may return fields in another order than they were written in.
 */
import { createHash } from "node:crypto";
import type { AnyPolicyReport } from "@kyverno-ts/api";

function canonical(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
}

/** The content digest of a report: equal digests mean `sameReportContent` holds. */
export function reportDigest(report: Pick<AnyPolicyReport, "results" | "summary" | "scope">): string {
  const results = (report.results ?? []).map((r) => ({ ...r, timestamp: undefined }));
  return createHash("sha1")
    .update(canonical({ results, summary: report.summary ?? {}, scope: report.scope ?? {} }))
    .digest("base64");
}
