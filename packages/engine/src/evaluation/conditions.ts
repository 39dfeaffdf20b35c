import type { Condition, Conditions, JsonValue } from "@kyverno-ts/api";
import { evaluateOperator } from "../conditions/index.js";
import { isConstant, type ResolveMode, type Scope, substitute } from "./variables.js";

/** Outcome of a condition block: whether it holds, or why it could not be evaluated. */
export type ConditionsResult = { ok: true; value: boolean; message?: string } | { ok: false; error: string };

/** Evaluates condition `index` of the list at `listPath`; paths are only built when substitution needs them. */
function evaluateOne(
  scope: Scope,
  c: Condition,
  listPath: string,
  index: number,
  mode: ResolveMode,
): ConditionsResult {
  let key: JsonValue = c.key;
  if (!isConstant(scope, key)) {
    const r = substitute(scope, key, `${listPath}/${index}/key`, mode);
    if (!r.ok) return r;
    key = r.value;
  }
  let value: JsonValue | undefined = c.value;
  if (value !== undefined && !isConstant(scope, value)) {
    const v = substitute(scope, value, `${listPath}/${index}/value`, mode);
    if (!v.ok) return v;
    value = v.value;
  }
  const r = evaluateOperator(c.operator, key, value);
  if (!r.ok) return { ok: false, error: `${listPath}/${index}: ${r.error}` };
  if (c.message !== undefined) return { ok: true, value: r.value, message: c.message };
  return r.value ? HOLDS : FAILS;
}

// Results without a message carry nothing request-specific, so two shared (never modified) objects do.
const HOLDS: ConditionsResult = Object.freeze({ ok: true, value: true });
const FAILS: ConditionsResult = Object.freeze({ ok: true, value: false });

/**
 * Evaluates `any` / `all` conditions (or the legacy list, where all must hold) as upstream:
 * `any` holds when one condition is true (or the list is empty), `all` when every one is.
 * `mode` is `lenient` for preconditions (unresolved variables become empty strings).
 */
export function evaluateConditions(
  scope: Scope,
  conditions: Conditions | undefined,
  path: string,
  mode: ResolveMode,
): ConditionsResult {
  if (conditions === undefined) return HOLDS;
  if (Array.isArray(conditions)) return evaluateAll(scope, conditions, path, mode);
  const anyList = conditions.any;
  if (anyList !== undefined && anyList.length > 0) {
    let anyResult = false;
    const anyPath = `${path}/any`;
    for (let i = 0; i < anyList.length; i++) {
      const r = evaluateOne(scope, anyList[i] as Condition, anyPath, i, mode);
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
  return evaluateAll(scope, allList, `${path}/all`, mode);
}

function evaluateAll(scope: Scope, list: Condition[], path: string, mode: ResolveMode): ConditionsResult {
  for (let i = 0; i < list.length; i++) {
    const r = evaluateOne(scope, list[i] as Condition, path, i, mode);
    if (!r.ok) return r;
    if (!r.value) return r.message === undefined ? FAILS : { ok: true, value: false, message: r.message };
  }
  return HOLDS;
}
