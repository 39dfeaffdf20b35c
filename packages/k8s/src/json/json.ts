/** Small JSON value predicates shared by the patch primitives of this folder. */
import type { JsonObject, JsonValue } from "@kyverno-ts/api";

/** True for a JSON object (not an array, not null). */
export function isObject(value: JsonValue | undefined): value is JsonObject {
  return value !== null && value !== undefined && typeof value === "object" && !Array.isArray(value);
}

/** Structural equality of two JSON values; object key order does not matter. */
export function jsonEqual(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    for (const k of keys) if (!Object.hasOwn(b, k) || !jsonEqual(a[k], b[k])) return false;
    return true;
  }
  return false;
}

/** A short type name for error messages: `map`, `list`, `string`, `number`, `bool` or `null`. */
export function jsonTypeName(value: JsonValue | undefined): string {
  if (value === undefined || value === null) return "null";
  if (Array.isArray(value)) return "list";
  if (typeof value === "object") return "map";
  if (typeof value === "boolean") return "bool";
  return typeof value;
}

/** Deep copy of a JSON value, for results that must not alias the caller's input. */
export function cloneJson<T extends JsonValue>(value: T): T {
  return structuredClone(value);
}
