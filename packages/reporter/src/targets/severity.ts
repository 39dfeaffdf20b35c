/**
 * Severity order, the legacy priority derived from it, and `minimumSeverity` parsing.
 */
import type { NotifiableResult, Priority, Severity } from "./types.js";

/** Rank of each severity; a result without severity ranks below all of them. */
const SEVERITY_RANK: Readonly<Record<Severity, number>> = {
  info: 0,
  low: 1,
  medium: 2,
  high: 3,
  critical: 4,
};

/**
 * Legacy `minimumPriority` values and what they mean as a severity threshold
 * (`debug` lets everything through).
 */
const PRIORITY_THRESHOLD: Readonly<Record<Priority, Severity | undefined>> = {
  debug: undefined,
  info: "info",
  warning: "medium",
  error: "high",
  critical: "critical",
};

/** True when `value` is one of the five severities. */
export function isSeverity(value: string): value is Severity {
  return Object.hasOwn(SEVERITY_RANK, value);
}

/** Numeric rank of a severity (-1 for none): info 0 … critical 4. */
export function severityRank(severity: Severity | undefined): number {
  return severity === undefined ? -1 : SEVERITY_RANK[severity];
}

/** Outcome of `parseMinimumSeverity`: a threshold (undefined = no threshold) or an error message. */
export type ParsedThreshold = { ok: true; threshold: Severity | undefined } | { ok: false; error: string };

/**
 * Parses a `minimumSeverity` value: "" or a severity, or a legacy priority name
 * (debug, warning, error) mapped to the matching severity. Case-insensitive.
 */
export function parseMinimumSeverity(value: string | undefined): ParsedThreshold {
  const v = (value ?? "").trim().toLowerCase();
  if (v === "") return { ok: true, threshold: undefined };
  if (isSeverity(v)) return { ok: true, threshold: v };
  if (Object.hasOwn(PRIORITY_THRESHOLD, v)) {
    return { ok: true, threshold: PRIORITY_THRESHOLD[v as Priority] };
  }
  return {
    ok: false,
    error: `unknown severity "${value}": use info, low, medium, high or critical`,
  };
}

/**
 * True when the result reaches the threshold. As upstream, a result without severity does not reach
 * any threshold.
 */
export function meetsMinimumSeverity(result: NotifiableResult, threshold: Severity | undefined): boolean {
  return threshold === undefined || severityRank(result.severity) >= SEVERITY_RANK[threshold];
}

/**
 * Upstream's priority of a result: from its severity (critical → critical, high → error,
 * medium → warning, low/info → info); without severity, `error` results are error, fail/warn are
 * warning and the rest debug.
 */
export function resultPriority(result: NotifiableResult): Priority {
  switch (result.severity) {
    case "critical":
      return "critical";
    case "high":
      return "error";
    case "medium":
      return "warning";
    case "low":
    case "info":
      return "info";
    default:
      if (result.result === "error") return "error";
      if (result.result === "fail" || result.result === "warn") return "warning";
      return "debug";
  }
}
