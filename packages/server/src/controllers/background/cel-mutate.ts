/**
 * Processing a `cel-mutate` UpdateRequest (a mutate-existing MutatingPolicy or
 * NamespacedMutatingPolicy): the CEL engine resolves the targets of the trigger as read now
 * (`targetMatchConstraints` resource rules listed, or its `expression`'s `resource.Get` /
 * `resource.List`, answered from the cluster) and computes their patched forms; writing them, with the
 * conflict retries, is the classic mutate-existing path's (`mutateTargets`). A NamespacedMutatingPolicy
 * mutates only in its own namespace.
 */
import type { CelEngine, EngineRequest } from "@kyverno-ts/engine";
import type { CachedCelPolicy, CelPolicyStore } from "../../policycache/cel-policy-store.js";
import {
  engineRequest,
  mutateTargets,
  type ProcessOutcome,
  type ProcessorDeps,
  type TargetEvaluation,
} from "./process.js";
import {
  celPolicyRef,
  celRequestPolicyKey,
  type TriggerRef,
  type UpdateRequest,
  type UpdateRequestIntent,
} from "./update-request.js";

/** What processing a `cel-mutate` UpdateRequest needs besides the classic processor's dependencies. */
export interface CelMutateDeps extends ProcessorDeps {
  celEngine: CelEngine;
  celPolicies: CelPolicyStore;
}

/** Processes one `cel-mutate` UpdateRequest (API failures are a `Failed` outcome, never thrown). */
export async function processCelMutate(
  deps: CelMutateDeps,
  ur: UpdateRequest,
  signal: AbortSignal,
): Promise<ProcessOutcome> {
  const policy = deps.celPolicies.get(celRequestPolicyKey("cel-mutate", ur.spec.policy));
  if (policy === undefined || policy.compiled.type !== "mutate" || !policy.compiled.mutateExisting)
    return { state: "Skip", message: `MutatingPolicy ${ur.spec.policy} not found` };
  const namespace = policy.compiled.namespace;
  const evaluate: TargetEvaluation = async (trigger, data, s) => {
    const request = { ...engineRequest(deps, ur, trigger), contextLoader: data.loader };
    const response = await data.evaluate(() => deps.celEngine.mutateExisting(policy.compiled, request), s);
    if (namespace === undefined) return response;
    // A namespaced policy's targets outside its namespace are not its to write.
    const rules = response.rules.map((rule) => {
      const outside = (rule.patchedTargets ?? []).find(
        (t) => (t.target.metadata?.namespace ?? "") !== namespace,
      );
      if (outside === undefined) return rule;
      const { patchedTargets: _p, ...rest } = rule;
      const where = `${outside.target.kind} ${outside.target.metadata?.namespace ?? ""}/${outside.target.metadata?.name ?? ""}`;
      return {
        ...rest,
        status: "error" as const,
        message: `a NamespacedMutatingPolicy mutates only in its namespace ${namespace}, not ${where}`,
      };
    });
    return { ...response, rules };
  };
  const outcome = await mutateTargets(deps, ur, evaluate, () => true, signal);
  if (outcome.state !== "Completed") return outcome;
  const rule = outcome.evaluated?.response.rules[0];
  // The trigger no longer matches the policy (changed since it was admitted): nothing to do.
  if (rule === undefined) return { state: "Skip", message: "the policy does not apply to the trigger" };
  return outcome;
}

/**
 * The `cel-mutate` intent of a request against a mutate-existing MutatingPolicy, or undefined when the
 * policy does not apply to it (unmatched, or exempted). Evaluated without a resource loader, as the
 * admission controller and policy events do: a policy that matches answers `error` (its targets are
 * read by the background controller) or `pass`, and both are work.
 */
export function celMutateIntent(
  engine: CelEngine,
  policy: CachedCelPolicy,
  request: EngineRequest,
  trigger: TriggerRef,
  who: Pick<UpdateRequestIntent, "operation" | "userInfo">,
): UpdateRequestIntent | undefined {
  if (policy.compiled.type !== "mutate" || !policy.compiled.mutateExisting) return undefined;
  const rule = engine.mutateExisting(policy.compiled, request).rules[0];
  if (rule === undefined || (rule.status !== "pass" && rule.status !== "error")) return undefined;
  return {
    requestType: "cel-mutate",
    policy: celPolicyRef(policy.compiled),
    trigger,
    rules: [policy.compiled.name],
    deleteDownstream: false,
    ...(who.operation ? { operation: who.operation } : {}),
    ...(who.userInfo ? { userInfo: who.userInfo } : {}),
  };
}
