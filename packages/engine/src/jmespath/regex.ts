/**
 * Regex functions on Go RE2 syntax, evaluated by re2js (linear time: policy-supplied patterns never
 * reach JS RegExp). Replacement templates follow Go's `Regexp.Expand` (`$1`, `${1}`, `$name`, `$$`).
 */
import type { JsonValue } from "@kyverno-ts/api";
import { RE2JS } from "re2js";
import { arg, ensureStringLength, type FunctionContext, type FunctionDef } from "./context.js";
import { scalarToString } from "./convert.js";
import { argumentTypeError, functionError, messageOf } from "./errors.js";

/** A compiled pattern plus the Go-style match iterator we need. */
export interface CompiledRegex {
  readonly names: ReadonlyMap<string, number>;
  /** Every non-overlapping match as Go's FindAllStringSubmatchIndex (UTF-16 offsets, -1 for unset groups). */
  readonly allMatches: (input: string) => number[][];
  readonly test: (input: string) => boolean;
}

/** Compiles with re2js; `undefined` plus a Go-like message on a syntax error. */
export function compileRegex(pattern: string): CompiledRegex | string {
  let re: RE2JS;
  try {
    re = RE2JS.compile(pattern);
  } catch (thrown) {
    return messageOf(thrown);
  }
  const names = new Map<string, number>(Object.entries(re.namedGroups()));
  const engine = re.re2();
  return {
    names,
    allMatches: (input) => {
      const found: unknown = engine.findAllSubmatchIndex(input, -1);
      return Array.isArray(found) ? found.filter((m): m is number[] => Array.isArray(m)) : [];
    },
    test: (input) => re.matcher(input).find(),
  };
}

/** A compiler with a small per-instance cache, so a pattern used in a loop is compiled once. */
export function regexCache(limit = 256): (fn: string, pattern: string) => CompiledRegex {
  const cache = new Map<string, CompiledRegex>();
  return (fn, pattern) => {
    const hit = cache.get(pattern);
    if (hit !== undefined) return hit;
    const compiled = compileRegex(pattern);
    if (typeof compiled === "string") throw functionError(fn, compiled);
    if (cache.size >= limit) {
      const oldest = cache.keys().next();
      if (oldest.done !== true) cache.delete(oldest.value);
    }
    cache.set(pattern, compiled);
    return compiled;
  };
}

const NAME_CHAR = /^[\p{L}\p{Nd}_]$/u;

/** Parses a `$…` reference after the `$` (Go's regexp extract). */
function extractName(template: string, from: number): { name: string; end: number } | undefined {
  let i = from;
  const brace = template[i] === "{";
  if (brace) i++;
  const start = i;
  while (i < template.length) {
    const cp = template.codePointAt(i) ?? 0;
    const c = String.fromCodePoint(cp);
    if (!NAME_CHAR.test(c)) break;
    i += c.length;
  }
  if (i === start) return undefined;
  const name = template.slice(start, i);
  if (brace) {
    if (template[i] !== "}") return undefined;
    i++;
  }
  return { name, end: i };
}

function groupIndex(regex: CompiledRegex, name: string): number {
  if (/^\d+$/.test(name) && !(name.length > 1 && name.startsWith("0")) && name.length <= 8)
    return Number(name);
  return regex.names.get(name) ?? -1;
}

/** Go's Regexp.Expand of `template` for one match. */
function expand(regex: CompiledRegex, template: string, src: string, match: readonly number[]): string {
  let out = "";
  let i = 0;
  while (i < template.length) {
    const dollar = template.indexOf("$", i);
    if (dollar < 0) break;
    out += template.slice(i, dollar);
    i = dollar + 1;
    if (template[i] === "$") {
      out += "$";
      i++;
      continue;
    }
    const ref = extractName(template, i);
    if (ref === undefined) {
      out += "$";
      continue;
    }
    i = ref.end;
    const group = groupIndex(regex, ref.name);
    const start = match[2 * group];
    const end = match[2 * group + 1];
    if (group >= 0 && start !== undefined && end !== undefined && start >= 0) out += src.slice(start, end);
  }
  return out + template.slice(i);
}

/** Go's ReplaceAllString / ReplaceAllLiteralString, failing once the result would exceed the limit. */
export function replaceAll(
  ctx: FunctionContext,
  fn: string,
  regex: CompiledRegex,
  src: string,
  replacement: string,
  literal: boolean,
): string {
  const parts: string[] = [];
  let length = 0;
  let last = 0;
  for (const match of regex.allMatches(src)) {
    const start = match[0] ?? 0;
    const end = match[1] ?? 0;
    const piece = src.slice(last, start) + (literal ? replacement : expand(regex, replacement, src, match));
    length += piece.length;
    ensureStringLength(ctx, fn, length);
    parts.push(piece);
    last = end;
  }
  parts.push(src.slice(last));
  ensureStringLength(ctx, fn, length + src.length - last);
  return parts.join("");
}

function stringArg(fn: string, args: readonly JsonValue[], index: number): string {
  const value = scalarToString(args[index]);
  if (value === undefined) throw argumentTypeError(fn, index + 1, "String or Real");
  return value;
}

/** The regex functions, sharing one compiled-pattern cache per Jmespath instance. */
export function regexFunctions(): readonly FunctionDef[] {
  const compile = regexCache();
  const replaceFn =
    (fn: string, literal: boolean) =>
    (a: readonly JsonValue[], ctx: FunctionContext): JsonValue => {
      const pattern = typeof a[0] === "string" ? a[0] : "";
      const src = stringArg(fn, a, 1);
      const replacement = stringArg(fn, a, 2);
      return replaceAll(ctx, fn, compile(fn, pattern), src, replacement, literal);
    };
  return [
    {
      name: "regex_replace_all",
      args: [arg("string"), arg("string", "number"), arg("string", "number")],
      returns: "string",
      description: "replaces every match of the RE2 regex; $1, $name and {1} after $ expand to groups",
      call: replaceFn("regex_replace_all", false),
    },
    {
      name: "regex_replace_all_literal",
      args: [arg("string"), arg("string", "number"), arg("string", "number")],
      returns: "string",
      description: "replaces every match of the RE2 regex with the literal replacement",
      call: replaceFn("regex_replace_all_literal", true),
    },
    {
      name: "regex_match",
      args: [arg("string"), arg("string", "number")],
      returns: "boolean",
      description: "true when the RE2 regex matches somewhere in the string or number",
      call: (a) => {
        const pattern = typeof a[0] === "string" ? a[0] : "";
        return compile("regex_match", pattern).test(stringArg("regex_match", a, 1));
      },
    },
  ];
}
