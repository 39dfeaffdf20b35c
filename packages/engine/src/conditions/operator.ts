/**
 * The condition operators of preconditions, deny rules and the like: one table from the operator's
 * name (case-insensitive) to its evaluation.
 */
import type { JsonValue } from "@kyverno-ts/api";
import { evaluateDurationOrdering } from "./duration-operators.js";
import { conditionEquals } from "./equals.js";
import { evaluateOrdering } from "./numeric.js";
import { evaluateSetOperator } from "./set-operators.js";

/** The outcome of one operator: its truth value, or why it could not be evaluated. */
export type OperatorResult = { ok: true; value: boolean } | { ok: false; error: string };

/** Evaluates `key <operator> value` for one operator (a missing value is null). */
export type OperatorFunction = (key: JsonValue, value: JsonValue | undefined) => boolean;
type Evaluate = OperatorFunction;

const OPERATORS: ReadonlyMap<string, Evaluate> = new Map<string, Evaluate>([
  ["equals", conditionEquals],
  ["equal", conditionEquals],
  ["notequals", (k, v) => !conditionEquals(k, v)],
  ["notequal", (k, v) => !conditionEquals(k, v)],
  ["in", (k, v) => evaluateSetOperator("In", k, v)],
  ["notin", (k, v) => evaluateSetOperator("NotIn", k, v)],
  ["anyin", (k, v) => evaluateSetOperator("AnyIn", k, v)],
  ["allin", (k, v) => evaluateSetOperator("AllIn", k, v)],
  ["anynotin", (k, v) => evaluateSetOperator("AnyNotIn", k, v)],
  ["allnotin", (k, v) => evaluateSetOperator("AllNotIn", k, v)],
  ["greaterthan", (k, v) => evaluateOrdering("GreaterThan", k, v)],
  ["greaterthanorequals", (k, v) => evaluateOrdering("GreaterThanOrEquals", k, v)],
  ["lessthan", (k, v) => evaluateOrdering("LessThan", k, v)],
  ["lessthanorequals", (k, v) => evaluateOrdering("LessThanOrEquals", k, v)],
  ["durationgreaterthan", (k, v) => evaluateDurationOrdering("GreaterThan", k, v)],
  ["durationgreaterthanorequals", (k, v) => evaluateDurationOrdering("GreaterThanOrEquals", k, v)],
  ["durationlessthan", (k, v) => evaluateDurationOrdering("LessThan", k, v)],
  ["durationlessthanorequals", (k, v) => evaluateDurationOrdering("LessThanOrEquals", k, v)],
]);

/**
 * Evaluates `key <operator> value` with Kyverno's semantics. `key` and `value` must already have their
 * variables substituted; a missing `value` is treated as null. Only an unknown operator is an error:
 * values of the wrong type simply make the condition false.
 */
export function evaluateOperator(
  operator: string,
  key: JsonValue,
  value: JsonValue | undefined,
): OperatorResult {
  const evaluate = operatorFor(operator);
  if (evaluate === undefined) return { ok: false, error: unknownOperatorMessage(operator) };
  return { ok: true, value: evaluate(key, value ?? null) };
}

/** The error of an operator `evaluateOperator` does not know. */
export function unknownOperatorMessage(operator: string): string {
  return `failed to create handler for condition operator ${operator}`;
}

/** The operators as Kyverno's documentation spells them (`NotEquals`), so most lookups skip lower-casing. */
const BY_SPELLING: ReadonlyMap<string, Evaluate> = new Map(
  [
    "Equals",
    "Equal",
    "NotEquals",
    "NotEqual",
    "In",
    "NotIn",
    "AnyIn",
    "AllIn",
    "AnyNotIn",
    "AllNotIn",
    "GreaterThan",
    "GreaterThanOrEquals",
    "LessThan",
    "LessThanOrEquals",
    "DurationGreaterThan",
    "DurationGreaterThanOrEquals",
    "DurationLessThan",
    "DurationLessThanOrEquals",
  ].map((name) => [name, OPERATORS.get(name.toLowerCase()) as Evaluate]),
);

/**
 * The evaluation of a (case-insensitive) operator name, undefined when unknown: for callers that
 * evaluate many conditions (call it with `value ?? null`); `evaluateOperator` does both steps.
 */
export function operatorFor(operator: string): OperatorFunction | undefined {
  return BY_SPELLING.get(operator) ?? OPERATORS.get(operator.toLowerCase());
}

/** True when `operator` names a supported condition operator (case-insensitive). */
export function isKnownOperator(operator: string): boolean {
  return OPERATORS.has(operator.toLowerCase());
}
