/**
 * Turns API counts into chart rows and text summaries (pure, so the charts stay thin and the
 * summaries read by screen readers say the same as the drawing).
 */
import type {
  ApiSeverity,
  ApiStatus,
  ApiStatusCounts,
  Findings,
  NamespaceStatusCounts,
} from "@kyverno-ts/reporter";
import { SEVERITIES, STATUSES } from "../filters/filter-state.ts";

/** The height of a bar chart of `rows` rows (horizontal bars grow with them). */
export function barsHeight(rows: number, horizontal = false): number {
  return horizontal ? Math.max(160, rows * 30 + 60) : 240;
}

/** A chart row: a label and one number per series. */
export type ChartRow = { label: string } & Record<string, number | string>;

/** One row per source with its count per key. */
export function findingsRows<K extends string>(findings: Findings<K>, keys: readonly K[]): ChartRow[] {
  return findings.counts.map((entry) => {
    const row: ChartRow = { label: entry.source };
    for (const key of keys) row[key] = entry.counts[key] ?? 0;
    return row;
  });
}

/** Status counts per namespace summed over sources. */
export function sumNamespaceCounts(
  perSource: readonly NamespaceStatusCounts[],
): Map<string, ApiStatusCounts> {
  const out = new Map<string, ApiStatusCounts>();
  for (const counts of perSource) {
    for (const [namespace, c] of Object.entries(counts)) {
      const sum = out.get(namespace) ?? { pass: 0, fail: 0, warn: 0, error: 0, skip: 0 };
      for (const status of STATUSES) sum[status] += c[status];
      out.set(namespace, sum);
    }
  }
  return out;
}

/** The namespaces with the most failures (then warnings, errors), at most `limit`, as chart rows. */
export function namespaceRows(counts: Map<string, ApiStatusCounts>, limit: number): ChartRow[] {
  const score = (c: ApiStatusCounts) => c.fail * 1e6 + c.error * 1e3 + c.warn;
  return [...counts.entries()]
    .sort(([a, x], [b, y]) => score(y) - score(x) || (a < b ? -1 : 1))
    .slice(0, limit)
    .map(([namespace, c]) => ({ label: namespace, ...c }));
}

/** "kyverno: 3 fail, 5 pass; trivy: …" — the rows as a sentence, naming non-zero counts only. */
export function summarize(rows: readonly ChartRow[], keys: readonly string[]): string {
  if (rows.length === 0) return "No results.";
  return `${rows
    .map((row) => {
      const parts = keys.filter((k) => Number(row[k]) > 0).map((k) => `${row[k]} ${k}`);
      return `${row.label}: ${parts.length ? parts.join(", ") : "none"}`;
    })
    .join("; ")}.`;
}

/** Status keys for charts. */
export const STATUS_KEYS: readonly ApiStatus[] = STATUSES;
/** Severity keys for charts, highest first, results without one last. */
export const SEVERITY_KEYS: readonly (ApiSeverity | "unknown")[] = [
  ...SEVERITIES.filter((s) => s !== "unknown").reverse(),
  "unknown",
];

/** The status counts of a chart row (absent ones 0), for `StatusCountCells`. */
export function statusCounts(row: ChartRow): Record<ApiStatus, number> {
  return {
    pass: Number(row.pass ?? 0),
    fail: Number(row.fail ?? 0),
    warn: Number(row.warn ?? 0),
    error: Number(row.error ?? 0),
    skip: Number(row.skip ?? 0),
  };
}
