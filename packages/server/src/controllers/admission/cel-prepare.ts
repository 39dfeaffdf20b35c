/**
 * What a CEL request needs before its policies are evaluated: Kyverno's ConfigMap filters, the
 * policies of its webhook, the GeneratingPolicies' and mutate-existing MutatingPolicies' work handed
 * to the background controller, and the job (plain data, so it can cross to an evaluation worker).
 */
import { celGenerateIntents } from "./cel-generate.js";
import type { CelHandlerDeps } from "./cel-handler-types.js";
import { celMutateExistingIntents } from "./cel-mutate-existing.js";
import type { PreparedCelJob } from "./cel-offload.js";
import type { CelWebhookRoute } from "./cel-routes.js";
import type { CelJob } from "./cel-step.js";
import { isExcludedRequester, isFilteredResource } from "./filters.js";
import { engineRequest, type RequestSubject, requestSubject } from "./request.js";
import { type AdmissionReviewResponse, allow, type ParsedReview } from "./review.js";

/** What a request needs: an answer already, or its policies evaluated (a job). */
export type PreparedCel = { answer: AdmissionReviewResponse } | PreparedCelJob;

/** Whether Kyverno's ConfigMap excludes the request (its requester or its resource). */
function isFiltered(d: CelHandlerDeps, review: ParsedReview, subject: RequestSubject): boolean {
  const { request } = review;
  const cfg = d.options.config();
  return (
    isExcludedRequester(cfg, request.userInfo, undefined) ||
    isFilteredResource(cfg, {
      ...request.kind,
      subresource: request.subResource ?? "",
      namespace: request.namespace ?? subject.namespace,
      name: request.name ?? subject.name,
    })
  );
}

/** `receivedAt`: when the request arrived (monotonic); its deadline counts from then. */
export function prepare(
  d: CelHandlerDeps,
  route: CelWebhookRoute,
  review: ParsedReview,
  receivedAt: number,
): PreparedCel {
  const { request } = review;
  const { engine, options } = d;
  const subject = requestSubject(review);
  if (isFiltered(d, review, subject)) return { answer: allow(request.uid) };
  let policies = d.store.select({
    type: route.type,
    namespace: subject.namespace,
    failurePolicy: route.failurePolicy,
    ...(route.policy === undefined ? {} : { name: route.policy }),
  });
  if (policies.length === 0 || (route.type === "mutate" && request.operation === "DELETE"))
    return { answer: allow(request.uid) };
  const base = engineRequest(review, subject, undefined, [], options.resourceKind);
  const labels = subject.namespace ? options.namespaceLabels?.(subject.namespace) : undefined;
  if (labels) base.namespaceLabels = labels;
  const sink = options.background;
  const background = sink !== undefined && request.dryRun !== true && !request.subResource;
  if (route.type === "generate") {
    // Evaluated after the answer went out, as generate rules are.
    if (background) sink.offer(() => celGenerateIntents(engine, policies, review, subject, base));
    return { answer: allow(request.uid) };
  }
  // Mutate-existing MutatingPolicies patch nothing at admission: their targets are the background
  // controller's (`cel-mutate` UpdateRequests, evaluated after the answer went out).
  const existing = route.type === "mutate" ? policies.filter((p) => p.compiled.mutateExisting) : [];
  if (existing.length > 0) {
    if (background) sink.offer(() => celMutateExistingIntents(engine, existing, review, subject, base));
    policies = policies.filter((p) => !p.compiled.mutateExisting);
    if (policies.length === 0) return { answer: allow(request.uid) };
  }
  const { cache: _cache, contextLoader: _loader, ruleValues: _values, ...plain } = base;
  const job: CelJob = {
    type: route.type === "mutate" ? "mutate" : "validate",
    policies: policies.map((p) => p.key),
    request: plain,
    subject,
    remainingMs: receivedAt + d.deadlineMs - d.clock.monotonic(),
  };
  return { job, policies };
}
