import type { JsonValue } from "@kyverno-ts/api";
import { type ContextResolver, type SubstituteResult, substituteAllWith } from "../variables/substitute.js";
import { contextFor } from "./deferred-context.js";
import type { JsonContext } from "./json-context.js";
import { searchShared } from "./request-cache.js";
import type { Scope } from "./scope.js";

export type { Scope } from "./scope.js";

/** How unresolved variables are treated: an error, or (in preconditions) an empty string as upstream. */
export type ResolveMode = "strict" | "lenient";

const PATTERN_FIELDS = new Set(["pattern", "anyPattern", "patchStrategicMerge"]);

/**
 * Converts the JSON pointer of a `{{@}}` inside a pattern or patch into the JMESPath of the same
 * field in the resource (`/validate/pattern/spec/x` → `request.object.spec.x`); inside a foreach the
 * path is relative to `element`.
 */
function pointerToJmespath(pointer: string): string {
  const parts = pointer.split("/").slice(1);
  let at = parts.findIndex((p) => PATTERN_FIELDS.has(p));
  if (at < 0) at = 1;
  const inForeach = parts.slice(0, at).includes("foreach");
  let rest = parts.slice(at + 1);
  if (parts[at] === "anyPattern") rest = rest.slice(1);
  let out = inForeach ? "element" : "request.object";
  for (const raw of rest) {
    const part = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (/^\d+$/.test(part)) out += `[${part}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(part)) out += `.${part}`;
    else out += `."${part.replace(/"/g, '\\"')}"`;
  }
  return out;
}

const ROOT_IDENTIFIER = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:$|[.[|])/;

/** The expression's leading identifier when it names no variable of the context. */
function undefinedRoot(ctx: JsonContext, expression: string): string | undefined {
  const m = ROOT_IDENTIFIER.exec(expression);
  if (!m) return undefined;
  const root = m[1] as string;
  return root in ctx ? undefined : root;
}

/** Resolves the expression of one `{{ }}` variable at `path` in a scope. */
function resolveIn(scope: Scope, mode: ResolveMode, expression: string, path: string): SubstituteResult {
  let expr = expression;
  if (expr === "@") expr = pointerToJmespath(path);
  if (scope.isDelete) expr = expr.replaceAll("request.object", "request.oldObject");
  const at = contextFor(scope, expr);
  const result = at.ok ? searchShared(scope.jp, at.ctx, expr, scope.searches, scope.budget) : at;
  if (!result.ok) {
    if (mode === "lenient") return { ok: true, value: "" };
    return { ok: false, error: `failed to resolve ${expression} at path ${path}: ${result.error}` };
  }
  const root = result.value === null && at.ok ? undefinedRoot(at.ctx, expr) : undefined;
  if (root !== undefined) {
    // A null result is a value, unless the expression starts from a variable that does not exist
    // at all (an unloaded context entry, a typo): upstream's JMESPath fails on the unknown key, in
    // the words of its docs (`JMESPath query failed: Unknown key "labels" in path`).
    if (mode === "lenient") return { ok: true, value: "" };
    return {
      ok: false,
      error: `failed to resolve ${expression} at path ${path}: JMESPath query failed: Unknown key ${JSON.stringify(root)} in path`,
    };
  }
  return result;
}

const resolveStrict: ContextResolver<Scope> = (scope, expression, path) =>
  resolveIn(scope, "strict", expression, path);
const resolveLenient: ContextResolver<Scope> = (scope, expression, path) =>
  resolveIn(scope, "lenient", expression, path);

/** True when a document holds no variables (a string without `{{`, a scalar, a memoised policy document). */
export function isConstant(scope: Scope, doc: JsonValue): boolean {
  if (typeof doc === "string") return !doc.includes("{{");
  if (doc === null || typeof doc !== "object") return true;
  return !scope.memo.containsVariables(doc);
}

/** Substitutes all variables of a document in a scope. */
export function substitute(
  scope: Scope,
  doc: JsonValue,
  basePath: string,
  mode: ResolveMode = "strict",
): SubstituteResult {
  // Documents without variables (most of a policy) come back as they are, without building a resolver.
  if (isConstant(scope, doc)) return { ok: true, value: doc };
  const memo = scope.memo;
  const resolve = mode === "strict" ? resolveStrict : resolveLenient;
  return substituteAllWith(doc, basePath, resolve, scope, memo.holdsNoVariables, memo.findVariable);
}

/**
 * Evaluates a bare JMESPath expression (a foreach `list`, a context `jmesPath`) in a scope. Unlike
 * `{{ }}` variables, upstream does not read `request.object` as `request.oldObject` on DELETE here:
 * `request.object` is null then, so a foreach over it has no elements and the rule does not apply
 * (deleting a resource that violates a foreach rule is not denied).
 */
export function evaluateExpression(scope: Scope, expression: string): SubstituteResult {
  const expr = expression;
  const at = contextFor(scope, expr);
  if (!at.ok) return { ok: false, error: `failed to evaluate ${expression}: ${at.error}` };
  const r = searchShared(scope.jp, at.ctx, expr, scope.searches, scope.budget);
  return r.ok ? r : { ok: false, error: `failed to evaluate ${expression}: ${r.error}` };
}
