import type { Condition, Conditions, JsonValue } from "@kyverno-ts/api";
import { operatorFor, unknownOperatorMessage } from "../conditions/index.js";
import { type ConditionPaths, conditionPaths } from "./condition-paths.js";
import { isConstant, type ResolveMode, type Scope, substitute } from "./variables.js";

/** Outcome of a condition block: whether it holds, or why it could not be evaluated. */
export type ConditionsResult = { ok: true; value: boolean; message?: string } | { ok: false; error: string };

/** Evaluates condition `index` of list `list`; its pointers come from `paths` (built once per location). */
function evaluateOne(
  scope: Scope,
  c: Condition,
  paths: ConditionPaths,
  list: "any" | "all" | "list",
  index: number,
  mode: ResolveMode,
): ConditionsResult {
  let key: JsonValue = c.key;
  if (!isConstant(scope, key)) {
    const r = substitute(scope, key, paths.entry(list, index).key, mode);
    if (!r.ok) return r;
    key = r.value;
  }
  let value: JsonValue | undefined = c.value;
  if (value !== undefined && !isConstant(scope, value)) {
    const v = substitute(scope, value, paths.entry(list, index).value, mode);
    if (!v.ok) return v;
    value = v.value;
  }
  const evaluate = operatorFor(c.operator);
  if (evaluate === undefined)
    return { ok: false, error: `${paths.entry(list, index).at}: ${unknownOperatorMessage(c.operator)}` };
  const holds = evaluate(key, value ?? null);
  if (c.message !== undefined) return { ok: true, value: holds, message: c.message };
  return holds ? HOLDS : FAILS;
}

// Results without a message carry nothing request-specific, so two shared (never modified) objects do.
const HOLDS: ConditionsResult = Object.freeze({ ok: true, value: true });
const FAILS: ConditionsResult = Object.freeze({ ok: true, value: false });

/**
 * Evaluates `any` / `all` conditions (or the legacy list, where all must hold) as upstream:
 * `any` holds when one condition is true (or the list is empty), `all` when every one is.
 * `mode` is `lenient` for preconditions (unresolved variables become empty strings). `path` is the
 * block's JSON pointer; callers evaluating a block on every request pass `evaluateConditionsAt` paths
 * built once instead.
 */
export function evaluateConditions(
  scope: Scope,
  conditions: Conditions | undefined,
  path: string,
  mode: ResolveMode,
): ConditionsResult {
  if (conditions === undefined) return HOLDS;
  return evaluateConditionsAt(scope, conditions, conditionPaths(path), mode);
}

/** `evaluateConditions` with the block's pointers built beforehand (see `conditionPaths`). */
export function evaluateConditionsAt(
  scope: Scope,
  conditions: Conditions | undefined,
  paths: ConditionPaths,
  mode: ResolveMode,
): ConditionsResult {
  if (conditions === undefined) return HOLDS;
  if (Array.isArray(conditions)) return evaluateAll(scope, conditions, paths, "list", mode);
  const anyList = conditions.any;
  if (anyList !== undefined && anyList.length > 0) {
    let anyResult = false;
    for (let i = 0; i < anyList.length; i++) {
      const r = evaluateOne(scope, anyList[i] as Condition, paths, "any", i, mode);
      if (!r.ok) return r;
      if (r.value) {
        anyResult = true;
        break;
      }
    }
    if (!anyResult) return FAILS;
  }
  const allList = conditions.all;
  if (allList === undefined || allList.length === 0) return HOLDS;
  return evaluateAll(scope, allList, paths, "all", mode);
}

function evaluateAll(
  scope: Scope,
  list: Condition[],
  paths: ConditionPaths,
  name: "all" | "list",
  mode: ResolveMode,
): ConditionsResult {
  for (let i = 0; i < list.length; i++) {
    const r = evaluateOne(scope, list[i] as Condition, paths, name, i, mode);
    if (!r.ok) return r;
    if (!r.value) return r.message === undefined ? FAILS : { ok: true, value: false, message: r.message };
  }
  return HOLDS;
}
