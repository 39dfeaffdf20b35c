import type { Conditions, ContextEntry, JsonValue, ValidateForeach } from "@kyverno-ts/api";
import type { ContextLoader } from "../engine-types.js";
import { evaluateConditionsAt } from "../evaluation/conditions.js";
import { ended, prepare } from "../evaluation/prepare.js";
import { evaluateExpression, isConstant, type Scope, substitute } from "../evaluation/variables.js";
import { type CompiledPattern, compilePattern, validateCompiled } from "../pattern/index.js";
import * as messages from "../response/messages.js";
import type { Outcome } from "../response/types.js";
import { hasVariables } from "../variables/substitute.js";
import type { BlockPaths } from "./block-paths.js";

export type { Outcome } from "../response/types.js";

/** The parts of a validate rule or of a foreach entry that are evaluated the same way. */
export interface ValidationBlock {
  context?: ContextEntry[] | undefined;
  preconditions?: Conditions | undefined;
  pattern?: JsonValue | undefined;
  anyPattern?: JsonValue[] | undefined;
  deny?: { conditions?: Conditions } | undefined;
  foreach?: ValidateForeach[] | undefined;
}

/** Everything a validation needs besides the block itself. */
export interface ValidateEnv {
  ruleName: string;
  /** The rule's `validate.message`, unsubstituted. */
  message: string | undefined;
  /** `pass` with the rule's pass message, shared by the rule's evaluations (never modified). */
  passed: Outcome;
  loader: ContextLoader;
  /** Names set by values, which context entries must not overwrite. */
  preset: ReadonlySet<string>;
  /** The object patterns are checked against when no foreach element is in scope. */
  resource: JsonValue;
}

function substitutedMessage(scope: Scope, env: ValidateEnv): string | undefined {
  if (env.message === undefined) return undefined;
  const r = substitute(scope, env.message, "/validate/message");
  if (!r.ok) return `failed to substitute variables in message: ${r.error}`;
  return typeof r.value === "string" ? r.value : JSON.stringify(r.value);
}

/**
 * Evaluates one validate block: its context entries and preconditions (a foreach entry's; a rule's
 * own are loaded by the rule pipeline first), then deny, pattern, anyPattern or a nested foreach,
 * with upstream's statuses and messages. `element` is the object a foreach put
 * in scope for patterns; undefined means the resource itself. `paths` are the block's pointers
 * (the engine memo's `validatePaths` for a rule's `validate`).
 */
export function evaluateBlock(
  scope: Scope,
  block: ValidationBlock,
  env: ValidateEnv,
  paths: BlockPaths,
  element: JsonValue | undefined,
  nesting: number,
): Outcome | undefined {
  let s = scope;
  if (block.context !== undefined || block.preconditions !== undefined) {
    const prepared = prepare(scope, block, env.loader, env.preset, paths);
    if (ended(prepared)) return prepared;
    s = prepared;
  }
  if (block.deny) {
    const deny = evaluateConditionsAt(s, block.deny.conditions, paths.deny, "strict");
    if (!deny.ok)
      return {
        status: "error",
        message: messages.substitutionErrorMessage("failed to check deny conditions", deny.error),
      };
    if (deny.value)
      return { status: "fail", message: messages.denyFailMessage(env.ruleName, substitutedMessage(s, env)) };
    return env.passed;
  }
  // Upstream skips pattern checks of a deleted resource (only deny rules see DELETE requests).
  if (
    element === undefined &&
    s.isDelete &&
    (block.pattern !== undefined || block.anyPattern !== undefined)
  ) {
    return undefined;
  }
  const target = element ?? env.resource;
  if (block.pattern !== undefined) {
    const compiled = substitutedPattern(s, block.pattern, paths.pattern);
    if (typeof compiled === "string")
      return {
        status: "error",
        message: messages.substitutionErrorMessage("variable substitution failed", compiled),
      };
    const r = validateCompiled(target, compiled, s.budget);
    switch (r.status) {
      case "pass":
        return env.passed;
      case "skip":
        return { status: "skip", message: messages.anchorSkipMessage(r.message) };
      case "fail":
        return {
          status: "fail",
          message: messages.patternFailMessage(env.ruleName, substitutedMessage(s, env), r.path),
        };
      case "error":
        return {
          status: "error",
          message: `validation error: rule ${env.ruleName} execution error: ${r.message}`,
        };
    }
  }
  if (block.anyPattern !== undefined) return evaluateAnyPattern(s, block.anyPattern, env, paths, target);
  if (block.foreach !== undefined) return evaluateForeachList(s, block.foreach, env, paths, nesting);
  return undefined;
}

/**
 * The compiled form of a pattern as written in the policy, with its variables substituted (patterns
 * without any, the usual case, are the engine's memoised ones); a string is the substitution error.
 */
function substitutedPattern(s: Scope, written: JsonValue, path: string): CompiledPattern | string {
  if (isConstant(s, written)) return s.memo.pattern(written);
  const pattern = substitute(s, written, path);
  if (!pattern.ok) return pattern.error;
  return pattern.value === written ? s.memo.pattern(written) : compilePattern(pattern.value);
}

function evaluateAnyPattern(
  s: Scope,
  anyPattern: JsonValue[],
  env: ValidateEnv,
  paths: BlockPaths,
  target: JsonValue,
): Outcome {
  const failures: Array<{ index: number; path: string }> = [];
  const skips: Array<{ index: number; message: string }> = [];
  for (let i = 0; i < anyPattern.length; i++) {
    const written = anyPattern[i] as JsonValue;
    const compiled = substitutedPattern(s, written, paths.anyPattern(i));
    if (typeof compiled === "string")
      return {
        status: "error",
        message: messages.substitutionErrorMessage("variable substitution failed", compiled),
      };
    const r = validateCompiled(target, compiled, s.budget);
    if (r.status === "pass")
      return { status: "pass", message: messages.anyPatternPassMessage(env.ruleName, i) };
    if (r.status === "skip") skips.push({ index: i, message: r.message });
    else failures.push({ index: i, path: r.path });
  }
  if (failures.length === 0 && skips.length > 0)
    return { status: "skip", message: messages.anyPatternSkipMessage(env.ruleName, skips) };
  return {
    status: "fail",
    message: messages.anyPatternFailMessage(env.ruleName, substitutedMessage(s, env), failures),
  };
}

const FOREACH_SKIPPED: Outcome = Object.freeze({ status: "skip", message: messages.FOREACH_SKIP_MESSAGE });
const FOREACH_PASSED: Outcome = Object.freeze({ status: "pass", message: messages.FOREACH_PASS_MESSAGE });

function evaluateList(s: Scope, list: string): JsonValue[] | undefined {
  let expr = list;
  if (hasVariables(list)) {
    const sub = substitute(s, list, "/validate/foreach/list");
    if (!sub.ok || typeof sub.value !== "string") return undefined;
    expr = sub.value;
  }
  const r = evaluateExpression(s, expr);
  if (!r.ok || r.value === null) return undefined;
  return Array.isArray(r.value) ? r.value : [r.value];
}

function evaluateForeachList(
  s: Scope,
  list: ValidateForeach[],
  env: ValidateEnv,
  paths: BlockPaths,
  nesting: number,
): Outcome {
  let applied = 0;
  for (let i = 0; i < list.length; i++) {
    const fe = list[i] as ValidateForeach;
    const elements = evaluateList(s, fe.list);
    if (elements === undefined) continue;
    const r = evaluateElements(s, fe, elements, env, paths.foreach(i), nesting);
    if (r.outcome.status !== "pass") return r.outcome;
    applied += r.applied;
  }
  if (applied === 0) return FOREACH_SKIPPED;
  return FOREACH_PASSED;
}

function evaluateElements(
  s: Scope,
  fe: ValidateForeach,
  elements: JsonValue[],
  env: ValidateEnv,
  paths: BlockPaths,
  nesting: number,
): { outcome: Outcome; applied: number } {
  let applied = 0;
  for (let index = 0; index < elements.length; index++) {
    s.budget?.charge("foreachElements", 1);
    const element = elements[index] as JsonValue;
    if (element === null) continue;
    const isMap = typeof element === "object" && !Array.isArray(element);
    if (fe.elementScope === true && !isMap) {
      return {
        outcome: {
          status: "error",
          message: `cannot use elementScope=true foreach rules for elements that are not maps`,
        },
        applied,
      };
    }
    const scoped = fe.elementScope ?? isMap;
    const ctx = {
      ...s.ctx,
      element,
      elementIndex: index,
      [elementKey(nesting)]: element,
      [elementIndexKey(nesting)]: index,
    };
    const r = evaluateBlock({ ...s, ctx }, fe, env, paths, scoped ? element : undefined, nesting + 1);
    if (r === undefined || r.status === "skip") continue;
    if (r.status === "error") {
      if (index < elements.length - 1) continue;
      return { outcome: { status: "error", message: `validation failure: ${r.message}` }, applied };
    }
    if (r.status !== "pass")
      return { outcome: { status: "fail", message: `validation failure: ${r.message}` }, applied };
    applied++;
  }
  return { outcome: env.passed, applied };
}

// Names of the per-nesting foreach variables, built once for the usual depths.
const ELEMENT_KEYS = ["element0", "element1", "element2", "element3"] as const;
const ELEMENT_INDEX_KEYS = ["elementIndex0", "elementIndex1", "elementIndex2", "elementIndex3"] as const;

function elementKey(nesting: number): string {
  return ELEMENT_KEYS[nesting] ?? `element${nesting}`;
}

function elementIndexKey(nesting: number): string {
  return ELEMENT_INDEX_KEYS[nesting] ?? `elementIndex${nesting}`;
}
