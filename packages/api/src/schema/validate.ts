import type { Issue, PathSegment } from "../load/errors.js";
import type { JsonObject, JsonValue } from "../policy/json.js";
import { isObject, jsonType, type ObjectSchema, type Schema } from "./dsl.js";

/** A validated value: a clean copy (nulls in typed fields dropped, enums in canonical case) and every problem found. */
export interface Validated {
  /** The cleaned value; only meaningful when `issues` has no errors. */
  value: JsonValue;
  issues: Issue[];
}

/**
 * Validates `value` against `schema`, reporting every problem (not just the first) with its path.
 * Following Kubernetes, `null` in a typed field means "absent". Checks of an object or array run
 * only when its own subtree is free of errors, so a typo is not followed by derived complaints.
 */
export function validate(schema: Schema, value: JsonValue, path: readonly PathSegment[] = []): Validated {
  const issues: Issue[] = [];
  const out = walk(schema, value, path, issues);
  return { value: out, issues };
}

function walk(schema: Schema, value: JsonValue, path: readonly PathSegment[], issues: Issue[]): JsonValue {
  switch (schema.kind) {
    case "any":
      return value;
    case "lazy":
      return walk(schema.get(), value, path, issues);
    case "string":
      return typeof value === "string"
        ? checkEnum(schema, value, path, issues)
        : wrongType("string", value, path, issues);
    case "boolean":
      return typeof value === "boolean" ? value : wrongType("boolean", value, path, issues);
    case "number":
      return typeof value === "number" ? value : wrongType("number", value, path, issues);
    case "integer":
      return typeof value === "number" && Number.isInteger(value)
        ? value
        : wrongType("integer", value, path, issues);
    case "union": {
      const type = jsonType(value);
      const chosen = schema.byType[type];
      if (chosen !== undefined) return walk(chosen, value, path, issues);
      return wrongType(Object.keys(schema.byType).join(" or "), value, path, issues);
    }
    case "array": {
      if (!Array.isArray(value)) return wrongType("array", value, path, issues);
      const before = errorCount(issues);
      const out = value.map((item, i) => walk(schema.items, item, [...path, i], issues));
      if (errorCount(issues) === before) for (const check of schema.checks) issues.push(...check(out, path));
      return out;
    }
    case "map": {
      if (!isObject(value)) return wrongType("object", value, path, issues);
      const out: JsonObject = {};
      for (const [k, v] of Object.entries(value))
        setField(out, k, walk(schema.values, v, [...path, k], issues));
      return out;
    }
    case "object":
      return isObject(value)
        ? walkObject(schema, value, path, issues)
        : wrongType("object", value, path, issues);
  }
}

function walkObject(
  schema: ObjectSchema,
  value: JsonObject,
  path: readonly PathSegment[],
  issues: Issue[],
): JsonObject {
  const before = errorCount(issues);
  const out: JsonObject = {};
  for (const [written, v] of Object.entries(value)) {
    const key = schema.foldCase ? canonicalKey(schema, written, path, issues) : written;
    const field = Object.hasOwn(schema.fields, key) ? schema.fields[key] : undefined;
    if (field === undefined) {
      if (schema.open) setField(out, key, v);
      else
        issues.push({
          code: "unknown-field",
          path,
          key,
          message: unknownField(key, Object.keys(schema.fields)),
        });
      continue;
    }
    if (v === null && field.kind !== "any") continue; // Kubernetes drops nulls of typed fields
    const instead = schema.deprecated[key];
    if (instead !== undefined) {
      issues.push({
        code: "deprecated",
        path,
        key,
        message: `field "${key}" is deprecated; ${instead}`,
        warning: true,
      });
    }
    setField(out, key, walk(field, v, [...path, key], issues));
  }
  for (const name of schema.required) {
    if (out[name] === undefined)
      issues.push({ code: "missing-field", path, message: `missing required field "${name}"` });
  }
  for (const [name, value] of Object.entries(schema.defaults)) {
    if (out[name] === undefined) setField(out, name, structuredClone(value));
  }
  if (errorCount(issues) === before) for (const check of schema.checks) issues.push(...check(out, path));
  return out;
}

/** The declared spelling of a field written in another case; warns about it. */
function canonicalKey(
  schema: ObjectSchema,
  key: string,
  path: readonly PathSegment[],
  issues: Issue[],
): string {
  if (Object.hasOwn(schema.fields, key)) return key;
  const lower = key.toLowerCase();
  const found = Object.keys(schema.fields).find((k) => k.toLowerCase() === lower);
  if (found === undefined) return key;
  const message = `field ${JSON.stringify(key)} is read as ${JSON.stringify(found)}; fix its spelling`;
  issues.push({ code: "unknown-field", path, key, message, warning: true });
  return found;
}

function checkEnum(
  schema: Extract<Schema, { kind: "string" }>,
  value: string,
  path: readonly PathSegment[],
  issues: Issue[],
): string {
  if (schema.enum === undefined) return value;
  const found = schema.ignoreCase
    ? schema.enum.find((e) => e.toLowerCase() === value.toLowerCase())
    : schema.enum.find((e) => e === value);
  if (found !== undefined) return found;
  const allowed = schema.enum.map((e) => JSON.stringify(e)).join(", ");
  issues.push({
    code: "invalid-value",
    path,
    message: `invalid value ${JSON.stringify(value)}: must be one of ${allowed}`,
  });
  return value;
}

function wrongType(
  expected: string,
  value: JsonValue,
  path: readonly PathSegment[],
  issues: Issue[],
): JsonValue {
  issues.push({ code: "wrong-type", path, message: `expected ${expected}, got ${jsonType(value)}` });
  return value;
}

function errorCount(issues: readonly Issue[]): number {
  let n = 0;
  for (const i of issues) if (i.warning !== true) n++;
  return n;
}

/** Sets a key safely, including `__proto__`. */
function setField(out: JsonObject, key: string, value: JsonValue): void {
  Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
}

function unknownField(key: string, known: readonly string[]): string {
  const close = known
    .map((k) => ({ k, d: distance(key.toLowerCase(), k.toLowerCase()) }))
    .filter(({ k, d }) => d <= Math.max(1, Math.floor(k.length / 4)))
    .sort((a, b) => a.d - b.d)[0];
  return close === undefined
    ? `unknown field ${JSON.stringify(key)}`
    : `unknown field ${JSON.stringify(key)} (did you mean ${JSON.stringify(close.k)}?)`;
}

/** Edit distance counting a swap of two neighbours as one edit (optimal string alignment), for "did you mean". */
function distance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number): number => rows[i]?.[j] ?? 0;
  for (let i = 1; i <= a.length; i++) {
    const row = rows[i] ?? [];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d = Math.min(d, at(i - 2, j - 2) + 1);
      row[j] = d;
    }
  }
  return at(a.length, b.length);
}
