/**
 * Background work of admitted requests: the generate and mutate-existing rules a request triggers
 * become UpdateRequest intents for the background controller, as upstream's admission controller
 * creates UpdateRequests. On the request path only the policy index is consulted and a thunk is
 * handed over; the engine evaluates the rules (match, exclude, preconditions) when the intake runs the
 * thunk, after the answer went out. A rule that passes, or errs on data only the background controller
 * loads (clone sources, targets, API calls), is work; a rule that skips is not.
 */
import type { CompiledPolicy, Engine, EngineRequest, PolicyResponse } from "@kyverno-ts/engine";
import type { CachedPolicy, PolicyCache } from "../../policycache/policy-cache.js";
import type { TriggerRef, UpdateRequestIntent } from "../background/update-request.js";
import type { RequestSubject } from "./request.js";
import type { ParsedReview } from "./review.js";

/** Receives the thunks (the UpdateRequest intake). */
export interface BackgroundSink {
  offer(intents: () => readonly UpdateRequestIntent[]): void;
}

/** Rules of a response that are work for the background controller. */
function workingRules(response: PolicyResponse): string[] {
  return response.rules.filter((r) => r.status === "pass" || r.status === "error").map((r) => r.name);
}

/** Names of the generate rules with `synchronize: true`. */
function synchronizedRules(compiled: CompiledPolicy): Set<string> {
  return new Set(
    compiled.rules.filter((r) => r.kind === "generate" && r.rule.generate?.synchronize).map((r) => r.name),
  );
}

/** The trigger of a request, as UpdateRequests record it. */
function triggerOf(subject: RequestSubject): TriggerRef {
  const o = subject.object;
  return {
    apiVersion: typeof o.apiVersion === "string" ? o.apiVersion : "",
    kind: subject.kind,
    namespace: subject.namespace,
    name: subject.name,
    uid: typeof o.metadata?.uid === "string" ? o.metadata.uid : "",
  };
}

/** The intents of one admitted request against the selected policies (run off the request path). */
export function backgroundIntents(
  engine: Engine,
  policies: readonly CachedPolicy[],
  review: ParsedReview,
  subject: RequestSubject,
  request: (policy: CachedPolicy) => EngineRequest,
): UpdateRequestIntent[] {
  const operation = review.request.operation;
  const trigger = triggerOf(subject);
  const base = {
    trigger,
    operation,
    ...(review.request.userInfo ? { userInfo: review.request.userInfo } : {}),
  };
  const out: UpdateRequestIntent[] = [];
  for (const policy of policies) {
    const req = request(policy);
    if (policy.types.generate) {
      const synchronized = synchronizedRules(policy.compiled);
      if (operation === "DELETE") {
        // Deleting a trigger deletes what synchronized rules generated for it.
        if (synchronized.size > 0)
          out.push({
            ...base,
            requestType: "generate",
            policy: policy.key,
            rules: [...synchronized],
            deleteDownstream: true,
            synchronize: true,
          });
      } else {
        const rules = workingRules(engine.generate(policy.compiled, req)).filter((r) =>
          policy.compiled.rules.some((x) => x.name === r && x.kind === "generate"),
        );
        if (rules.length > 0)
          out.push({ ...base, requestType: "generate", policy: policy.key, rules, deleteDownstream: false });
        // An update after which a synchronized rule no longer applies deletes its downstream.
        const stale = [...synchronized].filter((r) => !rules.includes(r));
        if (operation === "UPDATE" && stale.length > 0 && review.oldObject !== undefined) {
          const before = workingRules(
            engine.generate(policy.compiled, { ...req, resource: review.oldObject, operation: "CREATE" }),
          );
          const gone = stale.filter((r) => before.includes(r));
          if (gone.length > 0)
            out.push({
              ...base,
              requestType: "generate",
              policy: policy.key,
              rules: gone,
              deleteDownstream: true,
              synchronize: true,
            });
        }
      }
    }
    if (policy.types.mutateExisting && operation !== "DELETE") {
      const rules = workingRules(engine.mutateExisting(policy.compiled, req));
      if (rules.length > 0)
        out.push({ ...base, requestType: "mutate", policy: policy.key, rules, deleteDownstream: false });
    }
  }
  return out;
}

/** Selects the generate and mutate-existing policies of a request from the cache index. */
export function backgroundPolicies(
  cache: PolicyCache,
  query: {
    kind: string | undefined;
    namespace: string;
    operation: ParsedReview["request"]["operation"];
    failurePolicy?: "Fail" | "Ignore";
  },
): readonly CachedPolicy[] {
  const { failurePolicy, ...rest } = query;
  const select = (type: "generate" | "mutateExisting") =>
    cache.select(failurePolicy ? { type, ...rest, failurePolicy } : { type, ...rest });
  const generate = select("generate");
  const mutateExisting = select("mutateExisting");
  if (mutateExisting.length === 0) return generate;
  const seen = new Set(generate.map((p) => p.key));
  return [...generate, ...mutateExisting.filter((p) => !seen.has(p.key))];
}
