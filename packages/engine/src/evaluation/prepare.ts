/**
 * The step every rule type takes before its handler, and every foreach entry and mutate-existing
 * target before its own work: load the context entries, lay the per-rule values over them, then check
 * the preconditions. One implementation, so the messages for the same situation are the same
 * everywhere (upstream's: `failed to evaluate preconditions: …`, `preconditions not met; <the failing
 * condition's message>`). Context entries are declared, not loaded: a query naming one loads it
 * (`deferred-context`), so an entry nothing reaches cannot fail the rule.
 */
import type { Conditions, ContextEntry, JsonValue } from "@kyverno-ts/api";
import type { ContextLoader } from "../engine-types.js";
import { PRECONDITIONS_NOT_MET, substitutionErrorMessage } from "../response/messages.js";
import type { Outcome } from "../response/types.js";
import type { ConditionPaths } from "./condition-paths.js";
import { evaluateConditions, evaluateConditionsAt } from "./conditions.js";
import { deferContext } from "./context-entries.js";
import { withValues } from "./json-context.js";
import type { Scope } from "./variables.js";

/** The context and preconditions of a rule, a foreach entry or a target. */
export interface Preparable {
  context?: ContextEntry[] | undefined;
  preconditions?: Conditions | undefined;
}

/** Where they sit, for `{{@}}` and messages: pointers built once, or a path string. */
export interface PreparePaths {
  readonly context: string;
  readonly preconditions: ConditionPaths | string;
}

/** How `prepare` ends a rule: a context or precondition error, or unmet preconditions. */
export interface PrepareEnd extends Outcome {
  status: "error" | "skip";
}

/** The scope the rule continues in, or the outcome that ends it. */
export type Prepared = Scope | PrepareEnd;

/** Whether `prepare` ended the rule (its outcome) rather than giving the scope to continue in. */
export function ended(p: Prepared): p is PrepareEnd {
  return "status" in p;
}

/** Loads `entry`'s context, applies `values`, checks its preconditions (unresolved variables read as empty). */
export function prepare(
  scope: Scope,
  entry: Preparable,
  loader: ContextLoader,
  preset: ReadonlySet<string>,
  paths: PreparePaths,
  values?: Record<string, JsonValue>,
): Prepared {
  const declared = deferContext(scope, entry.context, loader, preset, paths.context);
  const ctx = withValues(declared.ctx, values);
  const s: Scope = ctx === declared.ctx ? declared : { ...declared, ctx };
  if (entry.preconditions === undefined) return s;
  const pre =
    typeof paths.preconditions === "string"
      ? evaluateConditions(s, entry.preconditions, paths.preconditions, "lenient")
      : evaluateConditionsAt(s, entry.preconditions, paths.preconditions, "lenient");
  if (!pre.ok)
    return {
      status: "error",
      message: substitutionErrorMessage("failed to evaluate preconditions", pre.error),
    };
  if (!pre.value)
    return {
      status: "skip",
      message: pre.message ? `${PRECONDITIONS_NOT_MET}; ${pre.message}` : PRECONDITIONS_NOT_MET,
    };
  return s;
}
