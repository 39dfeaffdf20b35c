/**
 * Entry point of pattern validation: walks the pattern over the resource and turns the first failure
 * into a rule-level outcome with Kyverno's precedence (skip, then negation fail, then plain fail).
 */
import type { JsonValue } from "@kyverno-ts/api";
import type { Budget } from "../budget/budget.js";
import { type CompiledPattern, compilePattern } from "./compile.js";
import { type Failure, isSkip, walkState } from "./failure.js";
import { walk } from "./walk.js";

/**
 * The outcome of checking a resource against one pattern.
 * - `fail`: `path` is the first failing field in upstream form (`/spec/containers/0/image/`).
 * - `skip`: a conditional or global anchor did not hold (or every list element skipped).
 * - `error`: the mismatch has no path (upstream reports it as a rule error for `pattern`, and as a
 *   failed entry for `anyPattern`), or the pattern itself is broken (unresolvable `$(...)` reference).
 */
export type PatternResult =
  | { status: "pass" }
  | { status: "fail"; path: string; message: string }
  | { status: "skip"; path: string; message: string }
  | { status: "error"; path: string; message: string };

const PASS: PatternResult = Object.freeze({ status: "pass" });

/**
 * Validates `resource` against a Kyverno validate `pattern` whose `{{ }}` variables are already
 * substituted. Pure and synchronous; for `anyPattern`, call once per entry. Compiles the pattern on
 * every call: evaluate a pattern used more than once with `compilePattern` + `validateCompiled`.
 */
export function validatePattern(resource: JsonValue, pattern: JsonValue): PatternResult {
  return validateCompiled(resource, compilePattern(pattern));
}

/**
 * As `validatePattern`, for a pattern compiled once with `compilePattern`. With a `budget`, every
 * resource node visited is charged to it (it throws its abort once exceeded).
 */
export function validateCompiled(
  resource: JsonValue,
  pattern: CompiledPattern,
  budget?: Budget,
): PatternResult {
  const state = walkState(pattern.source, pattern.depth, budget);
  const result = walk(resource, pattern.root, state);
  // Upstream drops the path of a plain failure when an anchor key was never found in the resource.
  let anchorMissing = false;
  if (result !== undefined && state.anchorsSeen !== undefined) {
    for (const seen of state.anchorsSeen.values()) if (!seen) anchorMissing = true;
  }
  return result === undefined ? PASS : outcomeOf(result, anchorMissing);
}

function outcomeOf(result: Failure, anchorMissing: boolean): PatternResult {
  const { path, message } = result;
  if (result.kind === "invalid") return { status: "error", path: "", message };
  if (isSkip(result)) return { status: "skip", path, message };
  if (result.kind === "negation") return { status: "fail", path, message };
  if (anchorMissing || path === "") return { status: "error", path: "", message };
  return { status: "fail", path, message };
}
