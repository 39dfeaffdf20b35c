import type { ContextEntry, JsonValue } from "@kyverno-ts/api";
import type { ContextLoader, LoadResult } from "../engine-types.js";
import { deferEntries } from "./deferred-context.js";
import { evaluateExpression, type Scope, substitute } from "./variables.js";

type Step = { ok: true; value: JsonValue | undefined } | { ok: false; error: string };

function subString(
  scope: Scope,
  s: string | undefined,
  path: string,
): { ok: true; value: string } | { ok: false; error: string } {
  if (s === undefined) return { ok: true, value: "" };
  const r = substitute(scope, s, path);
  if (!r.ok) return r;
  return { ok: true, value: typeof r.value === "string" ? r.value : JSON.stringify(r.value) };
}

function applyJmesPath(scope: Scope, value: JsonValue, jmesPath: string | undefined, path: string): Step {
  if (!jmesPath) return { ok: true, value };
  const expr = subString(scope, jmesPath, path);
  if (!expr.ok) return expr;
  const r = scope.jp.search(expr.value, value, scope.budget);
  return r.ok ? r : { ok: false, error: `${path}: ${r.error}` };
}

function fromLoader(result: LoadResult, what: string): Step {
  return result.ok
    ? { ok: true, value: result.value }
    : { ok: false, error: `failed to load ${what}: ${result.error}` };
}

function withDefault(scope: Scope, step: Step, fallback: JsonValue | undefined, path: string): Step {
  if (fallback === undefined) return step;
  if (step.ok && step.value !== null && step.value !== undefined) return step;
  const d = substitute(scope, fallback, `${path}/default`);
  return d.ok ? d : { ok: false, error: d.error };
}

function loadEntry(scope: Scope, entry: ContextEntry, loader: ContextLoader, path: string): Step {
  if (entry.variable) {
    const v = entry.variable;
    let step: Step;
    if (v.value !== undefined) {
      const sub = substitute(scope, v.value, `${path}/variable/value`);
      step = sub.ok ? applyJmesPath(scope, sub.value, v.jmesPath, `${path}/variable/jmesPath`) : sub;
    } else if (v.jmesPath) {
      const expr = subString(scope, v.jmesPath, `${path}/variable/jmesPath`);
      step = expr.ok ? evaluateExpression(scope, expr.value) : expr;
    } else {
      step = { ok: true, value: null };
    }
    step = withDefault(scope, step, v.default, `${path}/variable`);
    if (step.ok && (step.value === null || step.value === undefined)) {
      return {
        ok: false,
        error: `failed to add context entry for variable ${entry.name} since it evaluated to null`,
      };
    }
    return step;
  }
  if (entry.configMap) {
    if (!loader.configMap) return { ok: true, value: undefined };
    const name = subString(scope, entry.configMap.name, `${path}/configMap/name`);
    if (!name.ok) return name;
    const ns = subString(scope, entry.configMap.namespace, `${path}/configMap/namespace`);
    if (!ns.ok) return ns;
    return fromLoader(
      loader.configMap(ns.value || "default", name.value),
      `configMap ${ns.value}/${name.value}`,
    );
  }
  if (entry.apiCall) {
    if (!loader.apiCall) return { ok: true, value: undefined };
    const call = entry.apiCall;
    const urlPath = subString(scope, call.urlPath ?? call.service?.url, `${path}/apiCall/urlPath`);
    if (!urlPath.ok) return urlPath;
    let data: JsonValue | undefined;
    if (call.data) {
      const d = substitute(
        scope,
        Object.fromEntries(call.data.map((x) => [x.key, x.value])),
        `${path}/apiCall/data`,
      );
      if (!d.ok) return d;
      data = d.value;
    }
    const headers: Array<{ key: string; value: string }> = [];
    for (const [i, header] of (call.service?.headers ?? []).entries()) {
      const value = subString(scope, header.value, `${path}/apiCall/service/headers/${i}/value`);
      if (!value.ok) return value;
      headers.push({ key: header.key, value: value.value });
    }
    const caBundle = call.service?.caBundle;
    const loaded = loader.apiCall({
      ...(call.service ? { url: urlPath.value } : { urlPath: urlPath.value }),
      method: call.method ?? "GET",
      ...(data !== undefined ? { data } : {}),
      ...(headers.length > 0 ? { headers } : {}),
      ...(caBundle ? { caBundle } : {}),
    });
    let step = fromLoader(loaded, `apiCall ${urlPath.value}`);
    if (step.ok && step.value !== undefined)
      step = applyJmesPath(scope, step.value, call.jmesPath, `${path}/apiCall/jmesPath`);
    return withDefault(scope, step, call.default, `${path}/apiCall`);
  }
  if (entry.globalReference) {
    if (!loader.globalReference) return { ok: true, value: undefined };
    const step = fromLoader(
      loader.globalReference(entry.globalReference.name),
      `globalReference ${entry.globalReference.name}`,
    );
    if (!step.ok || step.value === undefined) return step;
    return applyJmesPath(
      scope,
      step.value,
      entry.globalReference.jmesPath,
      `${path}/globalReference/jmesPath`,
    );
  }
  if (entry.imageRegistry) {
    if (!loader.imageRegistry) return { ok: true, value: undefined };
    const ref = subString(scope, entry.imageRegistry.reference, `${path}/imageRegistry/reference`);
    if (!ref.ok) return ref;
    const step = fromLoader(loader.imageRegistry(ref.value), `imageRegistry ${ref.value}`);
    if (!step.ok || step.value === undefined) return step;
    return applyJmesPath(scope, step.value, entry.imageRegistry.jmesPath, `${path}/imageRegistry/jmesPath`);
  }
  return { ok: true, value: undefined };
}

/**
 * Declares context entries in a scope, loaded lazily as upstream (`deferred-context`): each is loaded
 * on the first query that names it, seeing the ones before it. Entries whose source has no loader (as
 * in the CLI, where values files supply them) stay unset; entries named in `preset` (names given by
 * values) are not declared, so values override them.
 */
export function deferContext(
  scope: Scope,
  entries: readonly ContextEntry[] | undefined,
  loader: ContextLoader,
  preset: ReadonlySet<string>,
  basePath: string,
): Scope {
  if (!entries || entries.length === 0) return scope;
  return deferEntries(scope, entries, loader, preset, basePath, loadEntry);
}
