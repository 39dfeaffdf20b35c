import type { JsonValue } from "@kyverno-ts/api";
import { functionError } from "./errors.js";

/** What a function implementation may use besides its arguments: the clock and the size limits. */
export interface FunctionContext {
  readonly now: () => Date;
  /** Longest string (in UTF-16 code units) a function may build. */
  readonly maxStringLength: number;
  /** Longest array a function may build. */
  readonly maxArrayLength: number;
}

/** JMESPath type names used in signatures, as the library's runtime understands them. */
export type ArgType =
  | "any"
  | "string"
  | "number"
  | "boolean"
  | "array"
  | "object"
  | "null"
  | "expref"
  | "array[string]"
  | "array[number]";

/** One positional argument of a function signature. */
export interface ArgSpec {
  readonly types: readonly ArgType[];
  readonly optional?: boolean;
  readonly variadic?: boolean;
}

/** A function implementation plus the metadata `kyverno-ts jp function` prints. */
export interface FunctionDef {
  readonly name: string;
  readonly args: readonly ArgSpec[];
  readonly returns: string;
  readonly description: string;
  readonly call: (args: readonly JsonValue[], ctx: FunctionContext) => JsonValue;
}

/** Shorthand for a single-type argument. */
export function arg(...types: ArgType[]): ArgSpec {
  return { types };
}

/** Throws when a string a function is about to build would exceed the limit. */
export function ensureStringLength(ctx: FunctionContext, fn: string, length: number): void {
  if (length > ctx.maxStringLength) {
    throw functionError(fn, `result length ${length} exceeds the limit of ${ctx.maxStringLength}`);
  }
}

/** Throws when an array a function is about to build would exceed the limit. */
export function ensureArrayLength(ctx: FunctionContext, fn: string, length: number): void {
  if (length > ctx.maxArrayLength) {
    throw functionError(fn, `result has ${length} elements, more than the limit of ${ctx.maxArrayLength}`);
  }
}

/** A JSON object (not an array, not null). */
export function isJsonObject(value: JsonValue | undefined): value is { [key: string]: JsonValue } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
