import type { JsonValue } from "@kyverno-ts/api";

/** Resolves the expression inside `{{ }}`; returns a value or an error message. Never throws. */
export type VariableResolver = (
  expression: string,
  path: string,
) => { ok: true; value: JsonValue } | { ok: false; error: string };

/** Outcome of a substitution: the new value, or the first error with the path where it happened. */
export type SubstituteResult = { ok: true; value: JsonValue } | { ok: false; error: string };

/**
 * A `VariableResolver` that takes what it resolves in as an argument, so callers that substitute
 * often pass one function and a context instead of building a closure per substitution.
 */
export type ContextResolver<C> = (context: C, expression: string, path: string) => SubstituteResult;

/** The `ContextResolver` of a closure. */
const callResolver: ContextResolver<VariableResolver> = (resolve, expression, path) =>
  resolve(expression, path);

/**
 * Matches one `{{ … }}` variable not preceded by a backslash. Inner braces may nest one level
 * (JMESPath multi-select hashes), as upstream's variable regex allows.
 */
const VARIABLE = /(^|[^\\])(\{\{(?:\{[^{}]*\}|[^{}])*\}\})/;
const ESCAPED = /\\\{\{/g;

/** True when the string contains at least one unescaped `{{ }}` variable. */
export function hasVariables(s: string): boolean {
  return s.includes("{{") && VARIABLE.test(s);
}

/** Strips braces, the shallow-substitution dash and surrounding spaces: `{{- a.b }}` → `a.b`. */
function expressionOf(variable: string): { expression: string; shallow: boolean } {
  let inner = variable.slice(2, -2);
  const shallow = inner.startsWith("-");
  if (shallow) inner = inner.slice(1);
  return { expression: inner.trim(), shallow };
}

/** The first variable of a string: where it is, and the expression inside its braces. */
export interface FoundVariable {
  /** Index of the opening `{{`. */
  readonly start: number;
  /** Length of the variable, braces included. */
  readonly length: number;
  readonly expression: string;
  /** `{{- … }}`: the value is substituted once, never re-substituted. */
  readonly shallow: boolean;
}

/** Finds the first variable of a string (engines pass one that remembers the strings of policies). */
export type VariableFinder = (s: string) => FoundVariable | undefined;

/** The plain `VariableFinder`: the first unescaped `{{ }}` variable of `s`, if any. */
export function findVariable(s: string): FoundVariable | undefined {
  if (!s.includes("{{")) return undefined;
  const match = VARIABLE.exec(s);
  if (!match) return undefined;
  const prefix = match[1] ?? "";
  const variable = match[2] ?? "";
  const { expression, shallow } = expressionOf(variable);
  return { start: match.index + prefix.length, length: variable.length, expression, shallow };
}

/** Bound on nested re-substitution of values that themselves contain variables. */
const MAX_NESTING = 16;

/**
 * Substitutes every variable in one string. A string that is exactly one variable becomes the
 * variable's JSON value (any type); otherwise values are interpolated (non-strings as JSON).
 * `find` locates the first variable of `value` itself; later steps use `findVariable`.
 */
export function substituteString(
  value: string,
  path: string,
  resolve: VariableResolver,
  find: VariableFinder = findVariable,
): SubstituteResult {
  return substituteStringWith(value, path, callResolver, resolve, find);
}

/** `substituteString` with a `ContextResolver` and its context. */
export function substituteStringWith<C>(
  value: string,
  path: string,
  resolve: ContextResolver<C>,
  context: C,
  find: VariableFinder = findVariable,
): SubstituteResult {
  let current = value;
  for (let depth = 0; depth < MAX_NESTING; depth++) {
    const found = depth === 0 ? find(current) : findVariable(current);
    if (found === undefined) break;
    const resolved = resolve(context, found.expression, path);
    if (!resolved.ok) return resolved;
    const start = found.start;
    if (start === 0 && found.length === current.length) {
      if (typeof resolved.value !== "string" || found.shallow) return { ok: true, value: resolved.value };
      current = resolved.value;
      continue;
    }
    const text = typeof resolved.value === "string" ? resolved.value : JSON.stringify(resolved.value);
    current = current.slice(0, start) + text + current.slice(start + found.length);
    if (found.shallow) return { ok: true, value: unescapeBraces(current) };
  }
  return { ok: true, value: unescapeBraces(current) };
}

function unescapeBraces(s: string): string {
  return s.includes("\\{{") ? s.replace(ESCAPED, "{{") : s;
}

/**
 * Substitutes variables in every string (values and map keys) of a JSON document.
 * `basePath` is the JSON pointer of the document inside the rule (e.g. `/validate/pattern`), used
 * for `{{@}}` and error messages. Returns the same object when nothing changed.
 */
export function substituteAll(
  doc: JsonValue,
  basePath: string,
  resolve: VariableResolver,
  isConstant?: (doc: object) => boolean,
  find: VariableFinder = findVariable,
): SubstituteResult {
  return substituteAllWith(doc, basePath, callResolver, resolve, isConstant, find);
}

/** `substituteAll` with a `ContextResolver` and its context. */
export function substituteAllWith<C>(
  doc: JsonValue,
  basePath: string,
  resolve: ContextResolver<C>,
  context: C,
  isConstant?: (doc: object) => boolean,
  find: VariableFinder = findVariable,
): SubstituteResult {
  if (typeof doc === "string") {
    // Both a variable and an escaped `\{{` contain `{{`.
    return doc.includes("{{")
      ? substituteStringWith(doc, basePath, resolve, context, find)
      : { ok: true, value: doc };
  }
  if (doc !== null && typeof doc === "object" && isConstant?.(doc)) return { ok: true, value: doc };
  if (Array.isArray(doc)) {
    let out: JsonValue[] | undefined;
    for (let i = 0; i < doc.length; i++) {
      const item = doc[i] as JsonValue;
      const r = substituteAllWith(item, `${basePath}/${i}`, resolve, context, isConstant, find);
      if (!r.ok) return r;
      if (r.value !== item) {
        out ??= doc.slice();
        out[i] = r.value;
      }
    }
    return { ok: true, value: out ?? doc };
  }
  if (doc !== null && typeof doc === "object") {
    let out: { [key: string]: JsonValue } | undefined;
    let keysChanged = false;
    const entries: Array<[string, JsonValue]> = [];
    for (const [key, item] of Object.entries(doc)) {
      let newKey = key;
      if (hasVariables(key)) {
        const k = substituteStringWith(key, `${basePath}/${escapePointer(key)}`, resolve, context, find);
        if (!k.ok) return k;
        newKey = typeof k.value === "string" ? k.value : JSON.stringify(k.value);
        if (newKey !== key) keysChanged = true;
      }
      const r = substituteAllWith(
        item,
        `${basePath}/${escapePointer(key)}`,
        resolve,
        context,
        isConstant,
        find,
      );
      if (!r.ok) return r;
      if (r.value !== item) out = {};
      entries.push([newKey, r.value]);
    }
    if (!out && !keysChanged) return { ok: true, value: doc };
    return { ok: true, value: Object.fromEntries(entries) };
  }
  return { ok: true, value: doc };
}

/** Escapes a map key for use in a JSON pointer (`~` → `~0`, `/` → `~1`). */
export function escapePointer(key: string): string {
  if (!key.includes("~") && !key.includes("/")) return key;
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}
