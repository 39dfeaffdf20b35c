/**
 * Bounded replacements for the JMESPath Community built-ins that can build large strings
 * (join, pad_left, pad_right, to_string) or that use backtracking regexes (trim_left, trim_right),
 * plus the descriptions `kyverno-ts jp function` prints for every built-in.
 */
import type { JsonValue } from "@kyverno-ts/api";
import { arg, ensureStringLength, type FunctionContext, type FunctionDef } from "./context.js";
import { codePoints } from "./convert.js";
import { functionError } from "./errors.js";

/** JSON.stringify that gives up (throws) once the output would exceed `limit` characters. */
export function boundedStringify(value: JsonValue, limit: number, fn: string): string {
  let length = 0;
  const parts: string[] = [];
  const push = (text: string) => {
    length += text.length;
    if (length > limit) throw functionError(fn, `result length exceeds the limit of ${limit}`);
    parts.push(text);
  };
  const walk = (v: JsonValue): void => {
    if (v === null || typeof v !== "object") {
      push(JSON.stringify(v) ?? "null");
      return;
    }
    if (Array.isArray(v)) {
      push("[");
      v.forEach((item, i) => {
        if (i > 0) push(",");
        walk(item);
      });
      push("]");
      return;
    }
    push("{");
    Object.entries(v).forEach(([key, item], i) => {
      push(`${i > 0 ? "," : ""}${JSON.stringify(key)}:`);
      walk(item);
    });
    push("}");
  };
  walk(value);
  return parts.join("");
}

const WHITESPACE = new Set([" ", "\t", "\n", "\r", "\v", "\f", "\u0085", "\u00a0"]);

function trimRunes(s: string, chars: string | undefined, left: boolean, right: boolean): string {
  const set = chars === undefined || chars === "" ? WHITESPACE : new Set(codePoints(chars));
  const runes = codePoints(s);
  let start = 0;
  let end = runes.length;
  if (left) while (start < end && set.has(runes[start] ?? "")) start++;
  if (right) while (end > start && set.has(runes[end - 1] ?? "")) end--;
  return runes.slice(start, end).join("");
}

function pad(ctx: FunctionContext, fn: string, a: readonly JsonValue[], left: boolean): string {
  const subject = typeof a[0] === "string" ? a[0] : "";
  const width = typeof a[1] === "number" ? a[1] : 0;
  const padding = typeof a[2] === "string" ? a[2] : " ";
  if (!Number.isInteger(width) || width < 0)
    throw new Error("invalid-value: expecting a non-negative integer.");
  if (codePoints(padding).length !== 1) {
    throw new Error(
      `invalid value, ${fn} expects its 'pad' parameter to be a valid string with a single codepoint`,
    );
  }
  ensureStringLength(ctx, fn, width);
  return left ? subject.padStart(width, padding) : subject.padEnd(width, padding);
}

/** Built-ins replaced so that they respect the limits. */
export const boundedBuiltins: readonly FunctionDef[] = [
  {
    name: "join",
    args: [arg("string"), arg("array[string]")],
    returns: "string",
    description: "joins an array of strings with a separator",
    call: (a, ctx) => {
      const glue = typeof a[0] === "string" ? a[0] : "";
      const list = Array.isArray(a[1]) ? a[1].map((s) => (typeof s === "string" ? s : "")) : [];
      const total = list.reduce((sum, s) => sum + s.length, 0) + glue.length * Math.max(0, list.length - 1);
      ensureStringLength(ctx, "join", total);
      return list.join(glue);
    },
  },
  {
    name: "pad_left",
    args: [arg("string"), arg("number"), { types: ["string"], optional: true }],
    returns: "string",
    description: "pads a string on the left to the given width",
    call: (a, ctx) => pad(ctx, "pad_left", a, true),
  },
  {
    name: "pad_right",
    args: [arg("string"), arg("number"), { types: ["string"], optional: true }],
    returns: "string",
    description: "pads a string on the right to the given width",
    call: (a, ctx) => pad(ctx, "pad_right", a, false),
  },
  {
    name: "to_string",
    args: [arg("any")],
    returns: "string",
    description: "a string as is; anything else as JSON text",
    call: (a, ctx) => {
      const value = a[0] ?? null;
      return typeof value === "string" ? value : boundedStringify(value, ctx.maxStringLength, "to_string");
    },
  },
  {
    name: "trim_left",
    args: [arg("string"), { types: ["string"], optional: true }],
    returns: "string",
    description: "removes leading whitespace (or the given characters)",
    call: (a) =>
      trimRunes(
        typeof a[0] === "string" ? a[0] : "",
        typeof a[1] === "string" ? a[1] : undefined,
        true,
        false,
      ),
  },
  {
    name: "trim_right",
    args: [arg("string"), { types: ["string"], optional: true }],
    returns: "string",
    description: "removes trailing whitespace (or the given characters)",
    call: (a) =>
      trimRunes(
        typeof a[0] === "string" ? a[0] : "",
        typeof a[1] === "string" ? a[1] : undefined,
        false,
        true,
      ),
  },
];

/** One-line descriptions of the JMESPath Community built-ins that are kept as they are. */
export const BUILTIN_DESCRIPTIONS: Readonly<Record<string, [returns: string, description: string]>> = {
  abs: ["number", "absolute value"],
  avg: ["number", "average of an array of numbers"],
  ceil: ["number", "rounds up to an integer"],
  contains: ["boolean", "true when the array or string contains the value"],
  ends_with: ["boolean", "true when the string ends with the suffix"],
  find_first: ["number", "index of the first occurrence of a substring"],
  find_last: ["number", "index of the last occurrence of a substring"],
  floor: ["number", "rounds down to an integer"],
  from_items: ["object", "object from an array of [key, value] pairs"],
  group_by: ["object", "groups array elements by the string an expression returns"],
  keys: ["array", "keys of an object"],
  length: ["number", "length of a string, array or object"],
  lower: ["string", "lower-cases the string"],
  map: ["array", "applies an expression to every element"],
  max: ["any", "largest number or string"],
  max_by: ["any", "element with the largest key"],
  merge: ["object", "merges objects, later keys win"],
  min: ["any", "smallest number or string"],
  min_by: ["any", "element with the smallest key"],
  not_null: ["any", "first argument that is not null"],
  reverse: ["any", "reverses a string or array"],
  sort: ["array", "sorts numbers or strings"],
  sort_by: ["array", "sorts by the key an expression returns"],
  starts_with: ["boolean", "true when the string starts with the prefix"],
  to_array: ["array", "wraps a non-array in an array"],
  to_number: ["number", "converts a string to a number (null when not numeric)"],
  type: ["string", "JSON type name of the value"],
  upper: ["string", "upper-cases the string"],
  values: ["array", "values of an object"],
  zip: ["array", "zips arrays into an array of tuples"],
};
