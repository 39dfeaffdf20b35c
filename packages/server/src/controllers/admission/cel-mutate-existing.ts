/**
 * Background work of mutate-existing MutatingPolicies: an admitted request (not a DELETE) that one
 * matches becomes a `cel-mutate` UpdateRequest intent for the background controller, computed off the
 * request path as for GeneratingPolicies; the background controller resolves and patches the targets.
 */
import type { CelEngine, EngineRequest } from "@kyverno-ts/engine";
import type { CachedCelPolicy } from "../../policycache/cel-policy-store.js";
import { celMutateIntent } from "../background/cel-mutate.js";
import type { UpdateRequestIntent } from "../background/update-request.js";
import { celTriggerOf } from "./cel-generate.js";
import type { RequestSubject } from "./request.js";
import type { ParsedReview } from "./review.js";

/** The intents of one admitted request against the mutate-existing MutatingPolicies selected for it. */
export function celMutateExistingIntents(
  engine: CelEngine,
  policies: readonly CachedCelPolicy[],
  review: ParsedReview,
  subject: RequestSubject,
  base: EngineRequest,
): UpdateRequestIntent[] {
  const trigger = celTriggerOf(subject);
  const who = {
    operation: review.request.operation,
    ...(review.request.userInfo ? { userInfo: review.request.userInfo } : {}),
  };
  const out: UpdateRequestIntent[] = [];
  for (const policy of policies) {
    const intent = celMutateIntent(engine, policy, base, trigger, who);
    if (intent !== undefined) out.push(intent);
  }
  return out;
}
