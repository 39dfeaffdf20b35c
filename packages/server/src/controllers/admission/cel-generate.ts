/**
 * Background work of GeneratingPolicies: an admitted request matching one becomes a `cel-generate`
 * UpdateRequest intent for the background controller (computed off the request path, as for generate
 * rules); deleting a trigger of a synchronized policy asks for its downstream to be deleted. A policy
 * that passes, or errs on data only the background controller loads (`resource.Get`…), is work.
 */
import type { KubeObject } from "@kyverno-ts/api";
import type { CelEngine, EngineRequest } from "@kyverno-ts/engine";
import type { CachedCelPolicy } from "../../policycache/cel-policy-store.js";
import {
  celPolicyRef,
  generatingSettings,
  type TriggerRef,
  type UpdateRequestIntent,
} from "../background/update-request.js";
import type { RequestSubject } from "./request.js";
import type { ParsedReview } from "./review.js";

/** The trigger of a request, as UpdateRequests record it. */
export function celTriggerOf(subject: RequestSubject): TriggerRef {
  const o = subject.object;
  return {
    apiVersion: typeof o.apiVersion === "string" ? o.apiVersion : "",
    kind: subject.kind,
    namespace: subject.namespace,
    name: subject.name,
    uid: typeof o.metadata?.uid === "string" ? o.metadata.uid : "",
  };
}

/** The intents of one admitted request against the GeneratingPolicies selected for it. */
export function celGenerateIntents(
  engine: CelEngine,
  policies: readonly CachedCelPolicy[],
  review: ParsedReview,
  subject: RequestSubject,
  base: EngineRequest,
): UpdateRequestIntent[] {
  const operation = review.request.operation;
  const out: UpdateRequestIntent[] = [];
  for (const policy of policies) {
    const settings = generatingSettings(policy.policy);
    const deleted = operation === "DELETE";
    if (deleted && !settings.synchronize) continue;
    // A deleted trigger: did the policy generate for it? (its rules as they match a created one)
    const request = deleted
      ? {
          ...base,
          resource: (review.oldObject ?? subject.object) as KubeObject,
          operation: "CREATE" as const,
        }
      : base;
    const rule = engine.generate(policy.compiled, request).rules[0];
    // A PolicyException's skip is work too: the background controller reports it, as upstream's.
    const excepted = rule?.status === "skip" && rule.exception !== undefined && !deleted;
    if (rule === undefined || (rule.status !== "pass" && rule.status !== "error" && !excepted)) continue;
    out.push({
      requestType: "cel-generate",
      policy: celPolicyRef(policy.compiled),
      trigger: celTriggerOf(subject),
      rules: [policy.compiled.name],
      deleteDownstream: deleted,
      ...(settings.synchronize ? { synchronize: true } : {}),
      operation,
      ...(review.request.userInfo ? { userInfo: review.request.userInfo } : {}),
    });
  }
  return out;
}
