/**
 * The steps of the rule pipeline that do not depend on the policy's kind, shared by the classic rule
 * loop (`rule-loop.ts`) and the CEL policy kinds' (`cel-rule.ts`): the policy-level gates, and the
 * evaluation budget around a rule's own work.
 */
import { BudgetExceeded, BudgetMessages } from "../budget/budget.js";
import type { EngineRequest } from "../engine-types.js";
import type { Outcome } from "../response/types.js";

/** What the policy-level gates read of a policy. */
export interface GatedPolicy {
  /** Whether background scans evaluate the policy. */
  readonly background: boolean;
  /** The namespace of a namespaced policy, which sees only resources of its namespace. */
  readonly namespace: string | undefined;
}

/**
 * Whether a policy is evaluated for a request at all: a background scan skips a policy that is not
 * for background, a namespaced policy skips resources of other namespaces. A policy gated out gives
 * a response without rules.
 */
export function policyApplies(req: EngineRequest, policy: GatedPolicy, resourceNamespace: string): boolean {
  if (req.background && !policy.background) return false;
  return policy.namespace === undefined || resourceNamespace === policy.namespace;
}

/** For a request without a deadline. */
export const NEVER_EXPIRED = (): boolean => false;

/**
 * The outcome of a rule not started because the request's deadline has passed (`expired`: what the
 * rule's `Budget.expired()` says): an `error`, so the caller's failure policy decides; undefined while
 * there is time.
 */
export function deadlinePassed(expired: boolean): Outcome | undefined {
  return expired ? { status: "error", message: BudgetMessages.deadline } : undefined;
}

/**
 * The outcome of a rule whose work threw: a `BudgetExceeded` abort (its budget or the deadline ran out
 * while it ran) is an `error` with the abort's message; anything else is a bug and is thrown on. Call
 * it from the `catch` around a rule's work: the abort never leaves the rule.
 */
export function budgetAbort(thrown: unknown): Outcome {
  if (!(thrown instanceof BudgetExceeded)) throw thrown;
  return { status: "error", message: thrown.message };
}
