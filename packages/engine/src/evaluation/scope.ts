/**
 * The scope variable substitution runs in, and the context entries it can still load: the types the
 * substitution (`variables.ts`) and the lazy context loading (`deferred-context.ts`) share, kept
 * apart from both so neither imports the other's types.
 */
import type { ContextEntry, JsonValue } from "@kyverno-ts/api";
import type { Budget } from "../budget/budget.js";
import type { ContextLoader } from "../engine-types.js";
import type { Jmespath } from "../jmespath/index.js";
import type { JsonContext } from "./json-context.js";
import type { EngineMemo } from "./memo.js";
import type { SharedSearches } from "./request-cache.js";

/** What variable substitution needs: the JMESPath instance, the context and the operation. */
export interface Scope {
  readonly jp: Jmespath;
  readonly ctx: JsonContext;
  readonly isDelete: boolean;
  /** Per-engine caches about policy documents (which hold no variables, compiled patterns). */
  readonly memo: EngineMemo;
  /** Lookups shared by the policies of one request; only used while `ctx` is their context. */
  readonly searches?: SharedSearches | undefined;
  /** The rule's evaluation budget (JMESPath steps, foreach elements, pattern nodes); unbounded when absent. */
  readonly budget?: Budget | undefined;
  /** Context entries declared but not loaded yet: a query naming one loads it (`deferred-context`). */
  readonly deferred?: DeferredView | undefined;
}

/** Loads one entry in a scope that sees the entries before it: its value, unset, or an error. */
export type EntryLoad = (
  scope: Scope,
  entry: ContextEntry,
  loader: ContextLoader,
  path: string,
) => { ok: true; value: JsonValue | undefined } | { ok: false; error: string };

/** A declared entry: its place and whether it is loaded. */
export interface Pending {
  readonly entry: ContextEntry;
  readonly path: string;
  readonly matcher: RegExp;
  state: "pending" | "loading" | "done";
  value: JsonValue | undefined;
}

/** One declaration of entries (a rule's, a foreach entry's, a target's), nested in an outer one. */
export interface Level {
  readonly outer: DeferredView | undefined;
  /** The scope the entries were declared in (its `deferred` is `outer`). */
  readonly base: Scope;
  readonly entries: readonly Pending[];
  readonly loader: ContextLoader;
  readonly load: EntryLoad;
}

/**
 * The entries a scope can reach: those of its own declaration before `limit` (all of them, except while
 * an entry of it is being loaded) and those of the declarations around it.
 */
export interface DeferredView {
  readonly level: Level;
  readonly limit: number;
  /** Last overlay built, reused while no entry was loaded since. */
  cache?: { base: JsonContext; loads: number; ctx: JsonContext } | undefined;
}
