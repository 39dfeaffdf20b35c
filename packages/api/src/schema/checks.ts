/** Reusable structural checks for `s.object(..., { checks })` and `s.array(..., check)`. */
import type { Issue, PathSegment } from "../load/errors.js";
import type { JsonObject, JsonValue } from "../policy/json.js";
import type { Check } from "./dsl.js";
import { isObject } from "./dsl.js";

/** True when a field is present and not an empty object/array/string (Go's "not the zero value"). */
export function isSet(v: JsonValue | undefined): boolean {
  if (v === undefined || v === null) return false;
  if (Array.isArray(v)) return v.length > 0;
  if (isObject(v)) return Object.keys(v).length > 0;
  if (typeof v === "string") return v !== "";
  return true;
}

/** Present with any non-null value, even empty: what `!= nil` means for a Go pointer or raw JSON. */
export function isPresent(v: JsonValue | undefined): boolean {
  return v !== undefined && v !== null;
}

/** An error issue of code `invalid-structure`. */
export function structure(path: readonly PathSegment[], message: string): Issue {
  return { code: "invalid-structure", path, message };
}

/** Exactly one of `fields` must be set (by `test`, default `isPresent`). */
export function exactlyOne(
  fields: readonly string[],
  test: (v: JsonValue | undefined) => boolean = isPresent,
  what = "",
): Check<JsonObject> {
  return (o, path) => {
    const set = fields.filter((f) => test(o[f]));
    const list = orList(fields);
    if (set.length === 0) return [structure(path, `${what}one of ${list} must be specified`)];
    if (set.length > 1)
      return [structure(path, `${what}only one of ${list} can be specified, found ${andList(set)}`)];
    return [];
  };
}

/** At most one of `fields` may be set. */
export function atMostOne(
  fields: readonly string[],
  test: (v: JsonValue | undefined) => boolean = isSet,
): Check<JsonObject> {
  return (o, path) => {
    const set = fields.filter((f) => test(o[f]));
    return set.length > 1
      ? [structure(path, `only one of ${orList(fields)} can be specified, found ${andList(set)}`)]
      : [];
  };
}

/** Items of an array of objects must have distinct values of `key`. */
export function uniqueBy(key: string, what: string): Check<JsonValue[]> {
  return (items, path) => {
    const seen = new Set<string>();
    const issues: Issue[] = [];
    items.forEach((item, i) => {
      const v = isObject(item) ? item[key] : undefined;
      if (typeof v !== "string") return;
      if (seen.has(v)) issues.push(structure([...path, i, key], `duplicate ${what} ${JSON.stringify(v)}`));
      seen.add(v);
    });
    return issues;
  };
}

/** `"a", "b" or "c"`. */
function orList(items: readonly string[]): string {
  return joinList(items, "or");
}

/** `"a", "b" and "c"`. */
function andList(items: readonly string[]): string {
  return joinList(items, "and");
}

function joinList(items: readonly string[], word: string): string {
  const q = items.map((i) => JSON.stringify(i));
  return q.length <= 1 ? q.join("") : `${q.slice(0, -1).join(", ")} ${word} ${q.at(-1)}`;
}

/** The string value of a field, or undefined. */
export function str(o: JsonObject | undefined, key: string): string | undefined {
  const v = o?.[key];
  return typeof v === "string" ? v : undefined;
}

/** The object value of a field, or undefined. */
export function obj(o: JsonObject | undefined, key: string): JsonObject | undefined {
  const v = o?.[key];
  return isObject(v) ? v : undefined;
}

/** The array value of a field, or an empty array. */
export function arr(o: JsonObject | undefined, key: string): JsonValue[] {
  const v = o?.[key];
  return Array.isArray(v) ? v : [];
}

/** The objects of an array field (other items skipped). */
export function objects(o: JsonObject | undefined, key: string): JsonObject[] {
  return arr(o, key).filter(isObject);
}

/** Structural equality of JSON values (key order ignored). */
export function deepEqual(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]))
    );
  }
  if (!isObject(a) || !isObject(b)) return false;
  const keys = Object.keys(a);
  return (
    keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]))
  );
}
