/**
 * A small typed builder of JSON Schemas: each builder returns a plain JSON Schema object (what
 * Fastify compiles into validators and serializers) that also carries, at the type level only, the
 * TypeScript type of the values it describes. `Infer<typeof schema>` is that type, so a shape is
 * written once, as its schema. Imports nothing.
 */

declare const VALUE: unique symbol;

/** A JSON Schema for values of type `T`; `T` exists only for the compiler. */
export interface JsonSchema<T> {
  readonly [VALUE]?: T;
}

/** The type of the values a schema describes. */
export type Infer<S> = S extends JsonSchema<infer T> ? T : never;

/**
 * Marks a property of {@link j.object} as optional: a non-enumerable symbol, invisible to JSON, to
 * Fastify's compilers and to `Object.keys`, kept so that spreading `schema.properties` into another
 * object keeps the property optional.
 */
const OPTIONAL = Symbol("optional");

/** A schema of an optional object property. */
export interface Optional<T> extends JsonSchema<T> {
  readonly [OPTIONAL]: true;
}

type Properties = Readonly<Record<string, JsonSchema<unknown>>>;

type Flatten<T> = { [K in keyof T]: T[K] } & {};

/** The object type of a property map: properties marked {@link j.optional} are optional, the rest required. */
export type ObjectOf<P extends Properties> = Flatten<
  { -readonly [K in keyof P as P[K] extends Optional<unknown> ? never : K]: Infer<P[K]> } & {
    -readonly [K in keyof P as P[K] extends Optional<unknown> ? K : never]?: Infer<P[K]>;
  }
>;

/** Options of string schemas (validation only; serializers ignore them). */
export interface StringOptions {
  minLength?: number;
  maxLength?: number;
  pattern?: string;
}

/** Options of integer schemas (validation only). */
export interface IntegerOptions {
  minimum?: number;
  maximum?: number;
}

/** Types a plain JSON Schema object. */
function schemaOf<T>(json: Readonly<Record<string, unknown>>): JsonSchema<T> {
  return json as JsonSchema<T>;
}

function isOptional(schema: JsonSchema<unknown>): boolean {
  return (schema as { [OPTIONAL]?: true })[OPTIONAL] === true;
}

/** The builders. Every schema is a fresh plain object; share one by referring to the same constant. */
export const j = {
  /** A string; `T` narrows its type without an `enum` (for responses whose values the code guarantees). */
  string: <T extends string = string>(options: StringOptions = {}): JsonSchema<T> =>
    schemaOf({ type: "string", ...options }),
  /** One of `values` (validated in queries). */
  enum: <const T extends string>(values: readonly T[], options: StringOptions = {}): JsonSchema<T> =>
    schemaOf({ type: "string", enum: [...values], ...options }),
  /** A whole number. */
  integer: (options: IntegerOptions = {}): JsonSchema<number> => schemaOf({ type: "integer", ...options }),
  /** true or false. */
  boolean: (): JsonSchema<boolean> => schemaOf({ type: "boolean" }),
  /** An array of `items`. */
  array: <T>(items: JsonSchema<T>, options: { maxItems?: number } = {}): JsonSchema<T[]> =>
    schemaOf({ type: "array", items, ...options }),
  /** An object with free keys whose values are `values`; `K` narrows the key type. */
  record: <T, K extends string = string>(values: JsonSchema<T>): JsonSchema<Record<K, T>> =>
    schemaOf({ type: "object", additionalProperties: values }),
  /** An object with known properties; those wrapped in {@link j.optional} may be absent, the others are `required`. */
  object: <const P extends Properties>(properties: P): JsonSchema<ObjectOf<P>> & { properties: P } => {
    const required = Object.keys(properties).filter((key) => !isOptional(properties[key] ?? {}));
    const schema = schemaOf<ObjectOf<P>>({
      type: "object",
      properties,
      ...(required.length > 0 ? { required } : {}),
    });
    return Object.assign(schema, { properties });
  },
  /** An optional property of {@link j.object} (a marked copy of `schema`). */
  optional: <T>(schema: JsonSchema<T>): Optional<T> => {
    const marked = { ...schema };
    Object.defineProperty(marked, OPTIONAL, { value: true, enumerable: false });
    return marked as Optional<T>;
  },
};
