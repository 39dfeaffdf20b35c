/**
 * The set operators. `AnyIn`, `AllIn`, `AnyNotIn` and `AllNotIn` take a scalar or a list as key and a
 * list (or a string: one value, or a JSON array of strings) as value; elements match with wildcards in
 * either direction, and a value element `a-b` / `a!-b` matches numbers inside / outside that range.
 * The deprecated `In` / `NotIn` keep upstream's stricter rules: a list key must be an exact subset.
 */
import type { JsonValue } from "@kyverno-ts/api";
import { goSprint, parseGoFloat } from "../pattern/go-strconv.js";
import { matchWildcard } from "../wildcard/wildcard.js";

/** The six set operators, by their canonical names. */
export type SetOperator = "In" | "NotIn" | "AnyIn" | "AllIn" | "AnyNotIn" | "AllNotIn";

const RANGE = /^(\d+(?:\.\d+)?)(!?-)(\d+(?:\.\d+)?)$/;

/** Evaluates a set operator; an unusable value type (a number, a map, a non-JSON string) yields `false`. */
export function evaluateSetOperator(op: SetOperator, key: JsonValue, value: JsonValue | undefined): boolean {
  if (key === null || (typeof key === "object" && !Array.isArray(key))) return false;
  const values = valueList(value, key);
  if (values === undefined) return false;
  if (!Array.isArray(key)) {
    const found = matchesSome(goSprint(key), values);
    return op === "In" || op === "AnyIn" || op === "AllIn" ? found : !found;
  }
  switch (op) {
    case "In":
      return allStrings(values) && everyKeyIncluded(key, values);
    case "NotIn":
      return allStrings(values) && !everyKeyIncluded(key, values);
    case "AnyIn":
      return someKey(key, values, true);
    case "AllIn":
      return !someKey(key, values, false);
    case "AnyNotIn":
      return someKey(key, values, false);
    case "AllNotIn":
      return !someKey(key, values, true);
  }
}

/** True when some value element matches `key` (see `elementMatches`). */
function matchesSome(key: string, values: readonly JsonValue[]): boolean {
  for (const v of values) if (elementMatches(key, v)) return true;
  return false;
}

/** True when some key element's `matchesSome` is `matched`. */
function someKey(key: readonly JsonValue[], values: readonly JsonValue[], matched: boolean): boolean {
  for (const k of key) if (matchesSome(goSprint(k), values) === matched) return true;
  return false;
}

function allStrings(values: readonly JsonValue[]): boolean {
  for (const v of values) if (typeof v !== "string") return false;
  return true;
}

function everyKeyIncluded(key: readonly JsonValue[], values: readonly JsonValue[]): boolean {
  for (const k of key) if (!values.includes(goSprint(k))) return false;
  return true;
}

/**
 * The value as a list. A string value is a single element when it already matches a scalar key (by
 * wildcard) or equals a one-element key, or when it is a range; otherwise it must be a JSON array of
 * strings. Any other value is unusable.
 */
function valueList(value: JsonValue | undefined, key: JsonValue): readonly JsonValue[] | undefined {
  if (Array.isArray(value)) return value;
  if (typeof value !== "string") return undefined;
  if (RANGE.test(value)) return [value];
  const single = Array.isArray(key)
    ? key.length === 1 && goSprint(key[0]) === value
    : matchWildcard(value, goSprint(key));
  return single ? [value] : parseStringArray(value);
}

function parseStringArray(s: string): string[] | undefined {
  try {
    const parsed: unknown = JSON.parse(s);
    if (parsed === null) return [];
    if (Array.isArray(parsed) && parsed.every((x) => typeof x === "string")) return parsed;
  } catch {
    // not JSON: the caller decides whether the plain string is usable
  }
  return undefined;
}

/** One key element against one value element: wildcards either way, or a numeric range. */
function elementMatches(key: string, value: JsonValue): boolean {
  const text = goSprint(value);
  if (matchAnyDirection(key, text)) return true;
  const range = typeof value === "string" ? RANGE.exec(value) : null;
  if (range === null) return false;
  const n = parseGoFloat(key);
  if (n === undefined || Number.isNaN(n)) return false;
  const inside = n >= Number(range[1]) && n <= Number(range[3]);
  return range[2] === "-" ? inside : !inside;
}

function matchAnyDirection(a: string, b: string): boolean {
  return matchWildcard(b, a) || matchWildcard(a, b);
}
