/**
 * The CEL handler's answer from a request's evaluations: ValidatingPolicies act by their
 * `validationActions` (Deny blocks, Warn warns, Audit only reports) and an evaluation error follows the
 * policy's `failurePolicy`; MutatingPolicies' patches are joined in order, a failure under
 * `failurePolicy: Fail` denies. Events and report results of the answer are offered here too.
 */
import type { JsonValue } from "@kyverno-ts/api";
import type { PolicyResponse, RuleResponse } from "@kyverno-ts/engine";
import type { CachedCelPolicy } from "../../policycache/cel-policy-store.js";
import type { CelHandlerDeps } from "./cel-handler-types.js";
import type { CelWebhookRoute } from "./cel-routes.js";
import type { CelEvaluation, CelJob } from "./cel-step.js";
import { type RequestSubject, requestSubject } from "./request.js";
import { admissionResultOf } from "./results.js";
import { type AdmissionReviewResponse, allow, allowWithPatch, deny, type ParsedReview } from "./review.js";

/** Upstream's message of a policy that blocked or warned: `Policy <name> failed: <message>`. */
export function celPolicyMessage(policy: CachedCelPolicy, rule: RuleResponse): string {
  const verb = rule.status === "error" ? "error" : "failed";
  return `Policy ${policy.compiled.name} ${verb}: ${rule.message}`;
}

/** One policy's response with the policy, as this thread holds it. */
interface Evaluated {
  policy: CachedCelPolicy;
  response: PolicyResponse;
}

/** The evaluations with their policies (by key, as this thread holds them), metrics recorded. */
function recorded(
  d: CelHandlerDeps,
  review: ParsedReview,
  evaluations: readonly CelEvaluation[],
): Evaluated[] {
  const out: Evaluated[] = [];
  for (const { key, response, seconds } of evaluations) {
    const policy = d.store.get(key);
    if (policy === undefined) continue;
    d.options.onEvaluated?.(policy, response, seconds, review);
    out.push({ policy, response });
  }
  return out;
}

/** The answer of a request from its policies' evaluations (validate or mutate, by the route). */
export function decideWith(
  d: CelHandlerDeps,
  route: CelWebhookRoute,
  review: ParsedReview,
  job: CelJob,
  evaluations: readonly CelEvaluation[],
): AdmissionReviewResponse {
  const evaluated = recorded(d, review, evaluations);
  return route.type === "mutate"
    ? mutateAnswer(d, review, evaluated)
    : validateAnswer(d, review, evaluated, job.subject);
}

function validateAnswer(
  d: CelHandlerDeps,
  review: ParsedReview,
  evaluated: Evaluated[],
  subject: RequestSubject,
): AdmissionReviewResponse {
  const { request } = review;
  const blocked: string[] = [];
  const warnings: string[] = [];
  for (const { policy, response } of evaluated) {
    for (const rule of response.rules) {
      if (rule.status !== "fail" && rule.status !== "error") continue;
      const message = celPolicyMessage(policy, rule);
      if (rule.status === "error" && policy.failurePolicy === "Ignore") {
        warnings.push(message);
        continue;
      }
      if (policy.actions.has("Deny")) blocked.push(message);
      if (policy.actions.has("Warn")) warnings.push(message);
    }
  }
  const responses = evaluated.map((e) => e.response).filter((r) => r.rules.length > 0);
  if (blocked.length > 0) {
    // The policies' Events of the rules that blocked (Deny): the resource does not exist.
    d.options.events?.admission(responses, true);
    return deny(request.uid, blocked.join("; "));
  }
  if (request.dryRun !== true && request.operation !== "DELETE" && responses.length > 0) {
    d.options.events?.admission(responses, false);
    const result =
      d.options.sink && admissionResultOf(request, subject, responses, "validate", d.clock.now());
    if (result) d.options.sink?.offer(result);
  }
  return allow(request.uid, warnings);
}

function mutateAnswer(
  d: CelHandlerDeps,
  review: ParsedReview,
  evaluated: Evaluated[],
): AdmissionReviewResponse {
  const { request } = review;
  const { options } = d;
  const patch: JsonValue[] = [];
  const warnings: string[] = [];
  for (const { policy, response } of evaluated) {
    for (const rule of response.rules) {
      if (rule.status !== "error" && rule.status !== "fail") continue;
      const message = celPolicyMessage(policy, rule);
      if (policy.failurePolicy === "Fail") {
        options.events?.mutation([response], true);
        return deny(request.uid, message);
      }
      warnings.push(message);
    }
    patch.push(...(response.patch ?? []));
  }
  if (request.dryRun !== true) {
    const responses = evaluated.map((e) => e.response).filter((r) => r.rules.length > 0);
    if (responses.length > 0) options.events?.mutation(responses, false);
    // The MutatingPolicies' results reach the reports as the mutate rules' of classic policies do.
    const result =
      options.sink && admissionResultOf(request, requestSubject(review), responses, "mutate", d.clock.now());
    if (result !== undefined) options.sink?.offer(result);
  }
  return allowWithPatch(request.uid, patch, warnings);
}
