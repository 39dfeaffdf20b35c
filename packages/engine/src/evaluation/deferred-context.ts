/**
 * Context entries loaded lazily, as upstream's deferred loading (`enableDeferredLoading`, on by
 * default since 1.10): declaring a rule's (or a foreach entry's, or a target's) context entries loads
 * nothing; a query that names an entry (`{{ data.x }}`, a foreach `list`, another entry's expression)
 * loads it first, once. An entry no query reaches is never loaded, so a failing `apiCall` or a missing
 * ConfigMap behind a precondition that is not met, or behind a pattern that is never evaluated, does
 * not make the rule an error.
 *
 * An entry is evaluated in the context it was declared in plus the entries before it (loaded on demand
 * the same way), so its value is the one an eager load would have given; only whether and when it is
 * loaded changes. A failed load is not remembered: the next query that names the entry tries again.
 */
import type { ContextEntry } from "@kyverno-ts/api";
import type { ContextLoader } from "../engine-types.js";
import { type JsonContext, withValue } from "./json-context.js";
import type { DeferredView, EntryLoad, Level, Pending, Scope } from "./scope.js";

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Upstream's matcher: the name at a word boundary, not preceded by a `.` or a word character, so `x`
 * is named by `x`, `x.y` and `length(x)` but not by `y.x` or `ax`.
 */
function nameMatcher(name: string): RegExp {
  return new RegExp(`(?:^|[^.0-9A-Za-z_])${escapeRegExp(name)}\\b`);
}

/**
 * Declares `entries` in `scope` without loading any: the scope returned loads each on the first query
 * that names it. Entries named in `preset` (values given by the caller) are not declared.
 */
export function deferEntries(
  scope: Scope,
  entries: readonly ContextEntry[],
  loader: ContextLoader,
  preset: ReadonlySet<string>,
  basePath: string,
  load: EntryLoad,
): Scope {
  const pending: Pending[] = [];
  for (const [i, entry] of entries.entries()) {
    if (preset.has(entry.name)) continue;
    pending.push({
      entry,
      path: `${basePath}/${i}`,
      matcher: nameMatcher(entry.name),
      state: "pending",
      value: undefined,
    });
  }
  if (pending.length === 0) return scope;
  const level: Level = { outer: scope.deferred, base: scope, entries: pending, loader, load };
  return { ...scope, deferred: { level, limit: pending.length } };
}

/** How many entries the view's chain has loaded: a version for the overlay cache. */
function loadsIn(view: DeferredView | undefined): number {
  let n = 0;
  for (let v = view; v !== undefined; v = v.level.outer)
    for (let i = 0; i < v.limit; i++) if (v.level.entries[i]?.state === "done") n++;
  return n;
}

/** Lays the loaded values the view reaches over `ctx`, outermost first. */
function overlay(ctx: JsonContext, view: DeferredView | undefined): JsonContext {
  if (view === undefined) return ctx;
  let out = overlay(ctx, view.level.outer);
  for (let i = 0; i < view.limit; i++) {
    const p = view.level.entries[i] as Pending;
    if (p.state === "done" && p.value !== undefined) out = withValue(out, p.entry.name, p.value);
  }
  return out;
}

function loadMatching(view: DeferredView, expression: string): string | undefined {
  const outer = view.level.outer;
  if (outer !== undefined) {
    const error = loadMatching(outer, expression);
    if (error !== undefined) return error;
  }
  const { level } = view;
  for (let i = 0; i < view.limit; i++) {
    const p = level.entries[i] as Pending;
    if (p.state !== "pending" || !p.matcher.test(expression)) continue;
    p.state = "loading";
    const before: DeferredView = { level, limit: i };
    const scope: Scope = { ...level.base, deferred: before };
    const step = level.load(scope, p.entry, level.loader, p.path);
    if (!step.ok) {
      p.state = "pending";
      return step.error;
    }
    p.value = step.value;
    p.state = "done";
  }
  return undefined;
}

/**
 * The context a query of `expression` runs against in `scope`: the scope's context with the deferred
 * entries it names loaded (and every entry loaded before), or the error of the first that failed.
 */
export function contextFor(
  scope: Scope,
  expression: string,
): { ok: true; ctx: JsonContext } | { ok: false; error: string } {
  const view = scope.deferred;
  if (view === undefined) return { ok: true, ctx: scope.ctx };
  const error = loadMatching(view, expression);
  if (error !== undefined) return { ok: false, error };
  const loads = loadsIn(view);
  if (loads === 0) return { ok: true, ctx: scope.ctx };
  const cached = view.cache;
  if (cached !== undefined && cached.base === scope.ctx && cached.loads === loads)
    return { ok: true, ctx: cached.ctx };
  const ctx = overlay(scope.ctx, view);
  view.cache = { base: scope.ctx, loads, ctx };
  return { ok: true, ctx };
}
