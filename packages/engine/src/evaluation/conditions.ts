import type { Condition, Conditions, JsonValue } from "@kyverno-ts/api";
import { evaluateOperator } from "../conditions/index.js";
import { type ResolveMode, type Scope, substitute } from "./variables.js";

/** Outcome of a condition block: whether it holds, or why it could not be evaluated. */
export type ConditionsResult = { ok: true; value: boolean; message?: string } | { ok: false; error: string };

function evaluateOne(scope: Scope, c: Condition, path: string, mode: ResolveMode): ConditionsResult {
  const key = substitute(scope, c.key, `${path}/key`, mode);
  if (!key.ok) return key;
  let value: JsonValue | undefined = c.value;
  if (value !== undefined) {
    const v = substitute(scope, value, `${path}/value`, mode);
    if (!v.ok) return v;
    value = v.value;
  }
  const r = evaluateOperator(c.operator, key.value, value);
  if (!r.ok) return { ok: false, error: `${path}: ${r.error}` };
  return c.message === undefined
    ? { ok: true, value: r.value }
    : { ok: true, value: r.value, message: c.message };
}

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
  if (conditions === undefined) return { ok: true, value: true };
  if (Array.isArray(conditions)) return evaluateAll(scope, conditions, path, mode);
  let anyResult = true;
  const anyList = conditions.any ?? [];
  if (anyList.length > 0) {
    anyResult = false;
    for (let i = 0; i < anyList.length; i++) {
      const r = evaluateOne(scope, anyList[i] as Condition, `${path}/any/${i}`, mode);
      if (!r.ok) return r;
      if (r.value) {
        anyResult = true;
        break;
      }
    }
  }
  if (!anyResult) return { ok: true, value: false };
  return evaluateAll(scope, conditions.all ?? [], `${path}/all`, mode);
}

function evaluateAll(scope: Scope, list: Condition[], path: string, mode: ResolveMode): ConditionsResult {
  for (let i = 0; i < list.length; i++) {
    const r = evaluateOne(scope, list[i] as Condition, `${path}/${i}`, mode);
    if (!r.ok) return r;
    if (!r.value)
      return r.message === undefined
        ? { ok: true, value: false }
        : { ok: true, value: false, message: r.message };
  }
  return { ok: true, value: true };
}
