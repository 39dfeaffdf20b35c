/**
 * A small declarative schema language for the YAML the project loads. Schemas are plain immutable
 * values built with `s.*`; `validate` (in validate.ts) walks a value against one and reports every
 * problem. Structural rules that a type cannot express (exactly one of, unique names) are `checks`.
 * Each builder also carries, at the type level only, the type of the values it accepts:
 * `Infer<typeof schema>` is the type a loader returns, so a wire type is written once, as its schema.
 */
import type { Issue, PathSegment } from "../load/errors.js";
import type { JsonObject, JsonValue } from "../policy/json.js";

declare const VALUE: unique symbol;

/** Type level only: the type of the values a schema accepts (absent at run time). */
export interface Typed<T> {
  readonly [VALUE]?: T;
}

/** The type of the values a schema accepts (what a loader returns once the value validated). */
export type Infer<S> = S extends Typed<infer T> ? T : never;

/** A check run on an object (or array) after its fields validated cleanly; returns the problems found. */
export type Check<T> = (value: T, path: readonly PathSegment[]) => Issue[];

/** A string, optionally restricted to an enum (matched exactly, or ignoring case). */
export interface StringSchema<T extends string = string> extends StringNode, Typed<T> {}

interface StringNode {
  readonly kind: "string";
  readonly enum?: readonly string[];
  readonly ignoreCase?: boolean;
}

/** An object with known fields; unknown fields are errors unless `open`. */
export interface ObjectSchema<T = unknown> extends ObjectNode, Typed<T> {}

interface ObjectNode {
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
type Node =
  | StringNode
  | { readonly kind: "boolean" }
  | { readonly kind: "integer" }
  | { readonly kind: "number" }
  | { readonly kind: "any" }
  | { readonly kind: "array"; readonly items: Schema; readonly checks: readonly Check<JsonValue[]>[] }
  | { readonly kind: "map"; readonly values: Schema }
  | ObjectNode
  | { readonly kind: "union"; readonly byType: Readonly<Partial<Record<JsonType, Schema>>> }
  | { readonly kind: "lazy"; readonly get: () => Schema };

/** A node of the schema language accepting values of type `T` (`unknown`: untyped). */
export type Schema<T = unknown> = Node & Typed<T>;

/** Options of `s.object`; `R` are the required keys, `D` those with defaults (both present once loaded). */
export interface ObjectOptions<R extends string = string, D extends string = string> {
  required?: readonly R[];
  deprecated?: Readonly<Record<string, string>>;
  checks?: readonly Check<JsonObject>[];
  open?: boolean;
  defaults?: Readonly<Record<D, JsonValue>>;
  foldCase?: boolean;
}

type Fields = Readonly<Record<string, Schema>>;

type Flatten<T> = { [K in keyof T]: T[K] } & {};

/** The object type of `fields`: keys in `Present` (required or defaulted) always set, the others optional. */
export type ObjectOf<F extends Fields, Present extends string> = Flatten<
  { -readonly [K in keyof F as K extends Present ? K : never]-?: Infer<F[K]> } & {
    -readonly [K in keyof F as K extends Present ? never : K]?: Infer<F[K]>;
  }
>;

/** Schema builders. Use `s.lazy` for recursive schemas (with the recursive type written as an interface). */
export const s = {
  /** Any string. */
  string: (): StringSchema => ({ kind: "string" }),
  /** One of `values`; `ignoreCase` accepts any spelling, and the loader normalises it. */
  enum: <const T extends string>(
    values: readonly T[],
    options?: { ignoreCase?: boolean },
  ): StringSchema<T> => ({
    kind: "string",
    enum: values,
    ignoreCase: options?.ignoreCase ?? false,
  }),
  /** true or false. */
  boolean: (): Schema<boolean> => ({ kind: "boolean" }),
  /** A whole number. */
  integer: (): Schema<number> => ({ kind: "integer" }),
  /** Any number. */
  number: (): Schema<number> => ({ kind: "number" }),
  /** Any JSON, not validated (patterns, data, condition keys and values). */
  any: (): Schema<JsonValue> => ({ kind: "any" }),
  /** An array of `items`. */
  array: <T>(items: Schema<T>, ...checks: Check<JsonValue[]>[]): Schema<T[]> => ({
    kind: "array",
    items,
    checks,
  }),
  /** An object whose keys are free and whose values are `values`. */
  map: <T>(values: Schema<T>): Schema<Record<string, T>> => ({ kind: "map", values }),
  /** A map of strings, as labels and annotations. */
  stringMap: (): Schema<Record<string, string>> => ({ kind: "map", values: { kind: "string" } }),
  /** An array of strings. */
  strings: (): Schema<string[]> => ({ kind: "array", items: { kind: "string" }, checks: [] }),
  /** An object with known fields; `required` and defaulted fields are always present in its type. */
  object: <
    const F extends Fields,
    const R extends string & keyof F = never,
    const D extends string & keyof F = never,
  >(
    fields: F,
    options: ObjectOptions<R, D> = {},
  ): ObjectSchema<ObjectOf<F, R | D>> => ({
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
  union: <const B extends Partial<Record<JsonType, Schema>>>(byType: B): Schema<Infer<B[keyof B]>> => ({
    kind: "union",
    byType,
  }),
  /** A schema resolved on use, for recursion. */
  lazy: <T>(get: () => Schema<T>): Schema<T> => ({ kind: "lazy", get }),
  /**
   * `schema`, with the values typed as `T` instead of what the schema infers: for a wire type kept
   * looser than its validation (raw JSON the engine carries as data) or written by hand (metadata).
   */
  typed: <T>(schema: Schema): Schema<T> => schema as Schema<T>,
};

/** Returns `base` with more fields, required fields and checks; used for versions of a kind. */
export function extend<B, const F extends Fields, const R extends string & keyof F = never>(
  base: ObjectSchema<B>,
  fields: F,
  options: ObjectOptions<R, never> = {},
): ObjectSchema<Flatten<Omit<B, keyof F> & ObjectOf<F, R>>> {
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
export function omit<B, const K extends string>(
  base: ObjectSchema<B>,
  names: readonly K[],
): ObjectSchema<Flatten<Omit<B, K>>> {
  const drop = new Set<string>(names);
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
