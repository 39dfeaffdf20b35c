/**
 * `Equals` / `NotEquals` (Kyverno's `EqualHandler`): typed equality led by the key's type. String keys
 * compare as durations, then as quantities, then with wildcards in the value; numbers accept numeric
 * strings; maps and lists compare deeply.
 */
import type { JsonValue } from "@kyverno-ts/api";
import { parseGoFloat, parseGoInt } from "../pattern/go-strconv.js";
import { compareQuantities, parseQuantity } from "../quantity/index.js";
import { matchWildcard } from "../wildcard/wildcard.js";
import { durationPair } from "./duration-pair.js";

/** True when `key` equals `value` by Kyverno's rules for the key's type. */
export function conditionEquals(key: JsonValue, value: JsonValue | undefined): boolean {
  if (typeof key === "boolean") return typeof value === "boolean" && key === value;
  if (typeof key === "number") return numberEquals(key, value);
  if (typeof key === "string") return stringEquals(key, value);
  if (key === null) return false;
  if (Array.isArray(key)) return Array.isArray(value) && deepEqual(key, value);
  return value !== null && typeof value === "object" && !Array.isArray(value) && deepEqual(key, value);
}

function numberEquals(key: number, value: JsonValue | undefined): boolean {
  if (typeof value === "number") return key === value;
  if (typeof value !== "string") return false;
  const parsed = Number.isInteger(key) ? parseGoInt(value) : parseGoFloat(value);
  return parsed === key;
}

function stringEquals(key: string, value: JsonValue | undefined): boolean {
  const durations = durationPair(key, value);
  if (durations !== undefined) return durations[0] === durations[1];
  const keyQuantity = parseQuantity(key);
  if (keyQuantity !== undefined && typeof value === "string") {
    const valueQuantity = parseQuantity(value);
    return valueQuantity !== undefined && compareQuantities(keyQuantity, valueQuantity) === 0;
  }
  return typeof value === "string" && matchWildcard(value, key);
}

function deepEqual(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) &&
      Array.isArray(b) &&
      a.length === b.length &&
      a.every((x, i) => deepEqual(x, b[i] ?? null))
    );
  }
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((k) => Object.hasOwn(b, k) && deepEqual(a[k] ?? null, b[k] ?? null));
}
