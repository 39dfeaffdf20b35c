/**
 * Internal failure values of the pattern walk. The kind decides precedence the way Kyverno's anchor
 * error types do: conditional/global anchor mismatches (and arrays whose elements were all skipped)
 * skip, a negation anchor fails, anything else is a plain mismatch; `invalid` is a broken pattern.
 */
import type { JsonValue } from "@kyverno-ts/api";

/** Why a subtree did not match. */
export type FailureKind = "mismatch" | "conditional" | "global" | "negation" | "skipped" | "invalid";

/** A subtree that did not match: where, and why. An empty path means the failure has no location. */
export interface Failure {
  readonly kind: FailureKind;
  readonly path: string;
  readonly message: string;
}

/** Per-call state of one pattern walk (never shared between calls). */
export interface WalkState {
  /** The whole pattern, for `$(...)` references. */
  readonly origin: JsonValue;
  /**
   * For each conditional, existence and negation anchor key of the pattern: whether some resource map
   * it was checked against had that key. A plain failure while any is unseen loses its path (upstream
   * reports that as a rule error rather than a failure).
   */
  readonly anchorsSeen: Map<string, boolean>;
}

/** True for failures that mean "this branch does not apply" rather than "this branch is wrong". */
export function isSkip(failure: Failure): boolean {
  return failure.kind === "conditional" || failure.kind === "global" || failure.kind === "skipped";
}

/** Builds a failure record. */
export function failure(kind: FailureKind, path: string, message: string): Failure {
  return { kind, path, message };
}

/** Go's `%v` rendering of a value inside messages. */
export function formatValue(value: JsonValue | undefined): string {
  if (value === undefined || value === null) return "<nil>";
  if (typeof value === "string") return value;
  return JSON.stringify(value);
}
