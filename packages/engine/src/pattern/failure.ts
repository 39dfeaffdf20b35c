/**
 * Internal failure values of the pattern walk. The kind decides precedence the way Kyverno's anchor
 * error types do: conditional/global anchor mismatches (and arrays whose elements were all skipped)
 * skip, a negation anchor fails, anything else is a plain mismatch; `invalid` is a broken pattern.
 */
import type { JsonValue } from "@kyverno-ts/api";
import type { Budget } from "../budget/budget.js";

/** Why a subtree did not match. */
export type FailureKind = "mismatch" | "conditional" | "global" | "negation" | "skipped" | "invalid";

/** A subtree that did not match: where, and why. An empty path means the failure has no location. */
export interface Failure {
  readonly kind: FailureKind;
  readonly path: string;
  readonly message: string;
}

/** Per-call state of one pattern walk (never shared between walks). */
export interface WalkState {
  /** The whole pattern, for `$(...)` references. */
  origin: JsonValue;
  /**
   * For each conditional, existence and negation anchor key of the pattern: whether some resource map
   * it was checked against had that key. A plain failure while any is unseen loses its path (upstream
   * reports that as a rule error rather than a failure). Created on the first anchor recorded.
   */
  anchorsSeen: Map<string, boolean> | undefined;
  /**
   * The path of the value being checked: its first `depth` segments, each ending in `/` (`spec/`,
   * `containers/`, `0/`). Set and unset as the walk descends (see `enter` / `leave`), and joined only
   * when a failure needs the path.
   */
  readonly segments: string[];
  depth: number;
  /** The rule's evaluation budget, charged one unit per resource node visited; unbounded when absent. */
  readonly budget: Budget | undefined;
}

/** A fresh walk state for one pattern check; `depth` is the deepest path it may reach. */
export function walkState(origin: JsonValue, depth: number, budget?: Budget): WalkState {
  return { origin, anchorsSeen: undefined, segments: new Array<string>(depth), depth: 0, budget };
}

/** Descends one path segment. */
export function enter(state: WalkState, segment: string): void {
  state.segments[state.depth++] = segment;
}

/** Goes back up one path segment. */
export function leave(state: WalkState): void {
  state.depth--;
}

/** The current path of a walk in upstream form: `/spec/containers/0/`. */
export function pathOf(state: WalkState): string {
  let path = "/";
  for (let i = 0; i < state.depth; i++) path += state.segments[i];
  return path;
}

// Index segments for the usual list lengths, so descending into a list builds no string.
const INDEX_SEGMENTS: readonly string[] = Object.freeze(Array.from({ length: 64 }, (_, i) => `${i}/`));

/** The path segment of list index `i` (`3/`). */
export function indexSegment(i: number): string {
  return INDEX_SEGMENTS[i] ?? `${i}/`;
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
