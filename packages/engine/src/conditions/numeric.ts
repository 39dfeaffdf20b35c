/**
 * `GreaterThan`, `GreaterThanOrEquals`, `LessThan`, `LessThanOrEquals` (Kyverno's numeric handler):
 * durations first (strings, with numbers as seconds on the other side), then Kubernetes quantities,
 * then plain numbers, then semantic versions. Keys of other types never compare.
 */
import type { JsonValue } from "@kyverno-ts/api";
import { parseGoFloat } from "../pattern/go-strconv.js";
import { compareQuantities, parseQuantity, type Quantity } from "../quantity/index.js";
import { compareSemver, tryParseSemver as parseSemver, type Version as SemVer } from "../semver/semver.js";
import { compareBig, durationPair } from "./duration-pair.js";

/** The four ordering operators, by their canonical names. */
export type OrderingOperator = "GreaterThan" | "GreaterThanOrEquals" | "LessThan" | "LessThanOrEquals";

/** Whether a comparison result (-1, 0, 1) satisfies the operator. */
export function satisfies(cmp: number, op: OrderingOperator): boolean {
  switch (op) {
    case "GreaterThan":
      return cmp > 0;
    case "GreaterThanOrEquals":
      return cmp >= 0;
    case "LessThan":
      return cmp < 0;
    case "LessThanOrEquals":
      return cmp <= 0;
  }
}

/** Evaluates `key <op> value`; mismatched or unparseable types yield `false`. */
export function evaluateOrdering(
  op: OrderingOperator,
  key: JsonValue,
  value: JsonValue | undefined,
): boolean {
  if (typeof key === "number") return numberKey(op, key, value);
  if (typeof key === "string") return stringKey(op, key, value);
  return false;
}

function compareNumbers(a: number, b: number): number {
  if (Number.isNaN(a) || Number.isNaN(b)) return Number.NaN;
  return a < b ? -1 : a > b ? 1 : 0;
}

function numberKey(op: OrderingOperator, key: number, value: JsonValue | undefined): boolean {
  if (typeof value === "number") return satisfies(compareNumbers(key, value), op);
  if (typeof value !== "string") return false;
  const durations = durationPair(key, value);
  if (durations !== undefined) return satisfies(compareBig(durations[0], durations[1]), op);
  const parsed = parseGoFloat(value);
  return parsed !== undefined && satisfies(compareNumbers(key, parsed), op);
}

function stringKey(op: OrderingOperator, key: string, value: JsonValue | undefined): boolean {
  const durations = durationPair(key, value);
  if (durations !== undefined) return satisfies(compareBig(durations[0], durations[1]), op);
  const quantity = parseQuantity(key);
  if (quantity !== undefined) return quantityKey(op, quantity, value);
  const parsed = parseGoFloat(key);
  if (parsed !== undefined) return numberKey(op, parsed, value);
  const version = parseSemver(key);
  if (version !== undefined) return versionKey(op, version, value);
  return false;
}

/** Numbers on the value side are truncated to integers, as upstream builds `NewQuantity(int64(v))`. */
function quantityKey(op: OrderingOperator, key: Quantity, value: JsonValue | undefined): boolean {
  let other: Quantity | undefined;
  if (typeof value === "number")
    other = Number.isFinite(value) ? parseQuantity(String(Math.trunc(value))) : undefined;
  else if (typeof value === "string") other = parseQuantity(value);
  return other !== undefined && satisfies(compareQuantities(key, other), op);
}

function versionKey(op: OrderingOperator, key: SemVer, value: JsonValue | undefined): boolean {
  const other = typeof value === "string" ? parseSemver(value) : undefined;
  return other !== undefined && satisfies(compareSemver(key, other), op);
}
