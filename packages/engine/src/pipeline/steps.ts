/**
 * The steps of the rule pipeline that do not depend on the policy's kind, shared by the classic rule
 * loop (`rule-loop.ts`) and the CEL policy kinds' (`cel-rule.ts`): the policy-level gates, and the
 * evaluation budget around a rule's own work.
 */
import { type Budget, BudgetExceeded, BudgetMessages } from "../budget/budget.js";
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

/**
 * Runs one rule's own work under its budget: a rule is not started once the request's deadline has
 * passed, and a running one that exceeds its budget or the deadline ends as an `error` (the caller's
 * failure policy decides). The abort is an internal exception; it never leaves this step.
 */
export function withinBudget<T>(budget: Budget, work: () => T): T | Outcome {
  try {
    if (budget.expired()) return { status: "error", message: BudgetMessages.deadline };
    return work();
  } catch (thrown) {
    if (!(thrown instanceof BudgetExceeded)) throw thrown;
    return { status: "error", message: thrown.message };
  }
}
