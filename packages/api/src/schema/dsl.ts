/**
 * A small declarative schema language for the YAML the project loads. Schemas are plain immutable
 * values built with `s.*`; `validate` (in validate.ts) walks a value against one and reports every
 * problem. Structural rules that a type cannot express (exactly one of, unique names) are `checks`.
 */
import type { Issue, PathSegment } from "../load/errors.js";
import type { JsonObject, JsonValue } from "../policy/types.js";

/** A check run on an object (or array) after its fields validated cleanly; returns the problems found. */
export type Check<T> = (value: T, path: readonly PathSegment[]) => Issue[];

/** A string, optionally restricted to an enum (matched exactly, or ignoring case). */
export interface StringSchema {
  readonly kind: "string";
  readonly enum?: readonly string[];
  readonly ignoreCase?: boolean;
}

/** An object with known fields; unknown fields are errors unless `open`. */
export interface ObjectSchema {
  readonly kind: "object";
  readonly fields: Readonly<Record<string, Schema>>;
  readonly required: readonly string[];
  /** Deprecated fields, with what to use instead; accepted with a warning. */
  readonly deprecated: Readonly<Record<string, string>>;
  readonly checks: readonly Check<JsonObject>[];
  /** Accept unknown fields (kept as is). */
  readonly open: boolean;
  /** Values set in the output when a field is absent (upstream defaults). */
  readonly defaults: Readonly<Record<string, JsonValue>>;
  /** Match field names ignoring case, with a warning, as Go's encoding/json does for the CLI's files. */
  readonly foldCase: boolean;
}

/** A JSON type name, as used in messages and for unions. */
export type JsonType = "null" | "boolean" | "number" | "string" | "array" | "object";

/** A node of the schema language. */
export type Schema =
  | StringSchema
  | { readonly kind: "boolean" }
  | { readonly kind: "integer" }
  | { readonly kind: "number" }
  | { readonly kind: "any" }
  | { readonly kind: "array"; readonly items: Schema; readonly checks: readonly Check<JsonValue[]>[] }
  | { readonly kind: "map"; readonly values: Schema }
  | ObjectSchema
  | { readonly kind: "union"; readonly byType: Readonly<Partial<Record<JsonType, Schema>>> }
  | { readonly kind: "lazy"; readonly get: () => Schema };

/** Options of `s.object`. */
export interface ObjectOptions {
  required?: readonly string[];
  deprecated?: Readonly<Record<string, string>>;
  checks?: readonly Check<JsonObject>[];
  open?: boolean;
  defaults?: Readonly<Record<string, JsonValue>>;
  foldCase?: boolean;
}

/** Schema builders. Use `s.lazy` for recursive schemas. */
export const s = {
  /** Any string. */
  string: (): StringSchema => ({ kind: "string" }),
  /** One of `values`; `ignoreCase` accepts any spelling, and the loader normalises it. */
  enum: (values: readonly string[], options?: { ignoreCase?: boolean }): StringSchema => ({
    kind: "string",
    enum: values,
    ignoreCase: options?.ignoreCase ?? false,
  }),
  /** true or false. */
  boolean: (): Schema => ({ kind: "boolean" }),
  /** A whole number. */
  integer: (): Schema => ({ kind: "integer" }),
  /** Any number. */
  number: (): Schema => ({ kind: "number" }),
  /** Any JSON, not validated (patterns, data, condition keys and values). */
  any: (): Schema => ({ kind: "any" }),
  /** An array of `items`. */
  array: (items: Schema, ...checks: Check<JsonValue[]>[]): Schema => ({ kind: "array", items, checks }),
  /** An object whose keys are free and whose values are `values`. */
  map: (values: Schema): Schema => ({ kind: "map", values }),
  /** A map of strings, as labels and annotations. */
  stringMap: (): Schema => ({ kind: "map", values: { kind: "string" } }),
  /** An array of strings. */
  strings: (): Schema => ({ kind: "array", items: { kind: "string" }, checks: [] }),
  /** An object with known fields. */
  object: (fields: Readonly<Record<string, Schema>>, options: ObjectOptions = {}): ObjectSchema => ({
    kind: "object",
    fields,
    required: options.required ?? [],
    deprecated: options.deprecated ?? {},
    checks: options.checks ?? [],
    open: options.open ?? false,
    defaults: options.defaults ?? {},
    foldCase: options.foldCase ?? false,
  }),
  /** A value whose schema depends on its JSON type, e.g. conditions as an object or a legacy list. */
  union: (byType: Partial<Record<JsonType, Schema>>): Schema => ({ kind: "union", byType }),
  /** A schema resolved on use, for recursion. */
  lazy: (get: () => Schema): Schema => ({ kind: "lazy", get }),
};

/** Returns `base` with more fields, required fields and checks; used for versions of a kind. */
export function extend(
  base: ObjectSchema,
  fields: Readonly<Record<string, Schema>>,
  options: ObjectOptions = {},
): ObjectSchema {
  return {
    kind: "object",
    fields: { ...base.fields, ...fields },
    required: [...base.required, ...(options.required ?? [])],
    deprecated: { ...base.deprecated, ...options.deprecated },
    checks: [...base.checks, ...(options.checks ?? [])],
    open: options.open ?? base.open,
    defaults: { ...base.defaults, ...options.defaults },
    foldCase: options.foldCase ?? base.foldCase,
  };
}

/** Returns `base` without some fields (and their required/deprecated entries). */
export function omit(base: ObjectSchema, names: readonly string[]): ObjectSchema {
  const drop = new Set(names);
  return {
    ...base,
    fields: Object.fromEntries(Object.entries(base.fields).filter(([k]) => !drop.has(k))),
    required: base.required.filter((k) => !drop.has(k)),
    deprecated: Object.fromEntries(Object.entries(base.deprecated).filter(([k]) => !drop.has(k))),
  };
}

/** The JSON type of a value, for messages. */
export function jsonType(v: JsonValue): JsonType {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  switch (typeof v) {
    case "boolean":
      return "boolean";
    case "number":
      return "number";
    case "string":
      return "string";
    default:
      return "object";
  }
}

/** True for a JSON object (not null, not an array). */
export function isObject(v: JsonValue | undefined): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
