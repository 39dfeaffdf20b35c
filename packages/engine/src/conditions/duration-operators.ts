/**
 * The deprecated `Duration*` operators: both sides must be Go durations (`"1h30m"`) or numbers of
 * seconds; the plain ordering operators handle durations too and should be preferred.
 */

import type { JsonValue } from "@kyverno-ts/api";
import { parseDurationExact } from "@kyverno-ts/k8s";
import { compareBig, secondsToNanos } from "./duration-pair.js";
import { type OrderingOperator, satisfies } from "./numeric.js";

function asDuration(v: JsonValue | undefined): bigint | undefined {
  if (typeof v === "number") return secondsToNanos(v);
  if (typeof v === "string") return parseDurationExact(v);
  return undefined;
}

/** Evaluates `key <op> value` as durations; anything that is not a duration or a number yields `false`. */
export function evaluateDurationOrdering(
  op: OrderingOperator,
  key: JsonValue,
  value: JsonValue | undefined,
): boolean {
  const k = asDuration(key);
  const v = asDuration(value);
  return k !== undefined && v !== undefined && satisfies(compareBig(k, v), op);
}
