/**
 * The registry of stable error and issue codes the reporter emits: in logs, in the
 * `policy_reporter_*_total` metrics' `code` label and on thrown {@link ReporterError}s. Tell errors
 * apart by `code`, never by message text. Every code is documented in the package README.
 */

/** Every code with a one-line description. */
export const ERROR_CODES = {
  REPORT_INVALID: "A report is not usable at all (no name, unknown kind, results not a list); it is skipped.",
  RESULT_INVALID: "A result is not an object; it is dropped, the rest of the report is kept.",
  RESULT_MISSING_POLICY: "A result names no policy; it is dropped.",
  RESULT_UNKNOWN_STATUS: "A result's `result` is missing or not pass/fail/warn/error/skip; it is dropped.",
  RESULT_UNKNOWN_SEVERITY:
    "A result's severity is not info/low/medium/high/critical; it is kept without one.",
  RESULT_DUPLICATE_ID: "Two results of one report have the same ID; the later one is dropped.",
  RESOURCE_INVALID: "A resource reference is not an object; the result is kept without it.",
  PROPERTY_INVALID: "A property value is not a string; it is converted to one.",
  FIELD_TRUNCATED: "A field (message, name, property, label) exceeded its limit and was truncated.",
  STORE_DISK_FULL: "The database reports a full disk or full table; the write is retried later.",
  STORE_WRITE_FAILED:
    "A write transaction failed; kept while the database is unreachable, else retried, then dropped and counted.",
  STORE_READ_FAILED: "A query behind the API failed; the API answers 500.",
  STORE_MIGRATION_FAILED: "The schema could not be migrated; the store does not start.",
  STORE_CONFIG_INVALID: "The store options are invalid (unknown type, missing connection details).",
  POLICY_DETAILS_UNAVAILABLE:
    "The reporter watches no Kyverno policies (not in a cluster, or kyverno.io not served); policy details answer 404.",
  POLICY_NOT_FOUND: "No watched ClusterPolicy or Policy has the requested name; policy details answer 404.",
  CONFIG_INVALID: "A configuration value is invalid; the reporter refuses to start and names the key.",
} as const;

/** A stable error or issue code. */
export type ReporterErrorCode = keyof typeof ERROR_CODES;

/** An error with a stable {@link ReporterErrorCode}; `cause` keeps the driver's original error. */
export class ReporterError extends Error {
  readonly code: ReporterErrorCode;

  constructor(code: ReporterErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ReporterError";
    this.code = code;
  }
}

/** True if `value` is a {@link ReporterError}, optionally with the given code. */
export function isReporterError(value: unknown, code?: ReporterErrorCode): value is ReporterError {
  return value instanceof ReporterError && (code === undefined || value.code === code);
}
