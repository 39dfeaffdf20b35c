/**
 * Problems found while normalising a report. Most are recoverable (the result or field is dropped,
 * converted or truncated and the report is kept); `REPORT_INVALID` rejects the whole report.
 */
import type { ReporterErrorCode } from "../errors.js";

/** The codes normalisation can report (a subset of the {@link ReporterErrorCode} registry). */
export type ModelIssueCode = Extract<
  ReporterErrorCode,
  | "REPORT_INVALID"
  | "RESULT_INVALID"
  | "RESULT_MISSING_POLICY"
  | "RESULT_UNKNOWN_STATUS"
  | "RESULT_UNKNOWN_SEVERITY"
  | "RESULT_DUPLICATE_ID"
  | "RESOURCE_INVALID"
  | "PROPERTY_INVALID"
  | "FIELD_TRUNCATED"
>;

/** One problem, located by a path into the input (`results[3].result`). */
export interface ModelIssue {
  readonly code: ModelIssueCode;
  readonly path: string;
  readonly message: string;
}

/** Formats an issue for a log line: `RESULT_UNKNOWN_STATUS at results[3].result: …`. */
export function formatIssue(issue: ModelIssue): string {
  return `${issue.code} at ${issue.path || "<report>"}: ${issue.message}`;
}
