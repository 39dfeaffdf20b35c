/**
 * The webhooks of the CEL policies (`/vpol/...`, `/mpol/...`, `/ivpol/...`, `/gpol/...`, as upstream): one
 * AdmissionReview in, one answer out, without throwing. ValidatingPolicies act on their results by
 * `validationActions` (Deny blocks, Warn warns, Audit only reports), an evaluation error follows the
 * policy's `failurePolicy`, MutatingPolicies patch in order (each sees the object as the ones before
 * it left it), and an ImageValidatingPolicy answers `error` (image verification is not implemented):
 * it blocks under `failurePolicy: Fail` and warns under `Ignore`, never a silent pass. GeneratingPolicies
 * admit and hand their work to the background controller (`cel-generate` UpdateRequests), as do
 * mutate-existing MutatingPolicies (`cel-mutate`).
 */
import type { JsonValue } from "@kyverno-ts/api";
import type { PolicyResponse, RuleResponse } from "@kyverno-ts/engine";
import type { CelExecutionLabels } from "../../metrics/metrics.js";
import type { CachedCelPolicy } from "../../policycache/cel-policy-store.js";
import { celGenerateIntents } from "./cel-generate.js";
import type { CelAdmissionHandler, CelAdmissionHandlerOptions } from "./cel-handler-types.js";
import { celMutateExistingIntents } from "./cel-mutate-existing.js";
import { createCelOffload, type PreparedCelJob } from "./cel-offload.js";
import type { CelWebhookRoute } from "./cel-routes.js";
import { type CelEvaluation, type CelEvaluator, type CelJob, evaluateCelPolicies } from "./cel-step.js";
import { isExcludedRequester, isFilteredResource } from "./filters.js";
import { createInlineBudget } from "./inline-budget.js";
import { engineRequest, type RequestSubject, requestSubject } from "./request.js";
import { admissionResultOf } from "./results.js";
import {
  type AdmissionReviewResponse,
  allow,
  allowWithPatch,
  deny,
  type HandlerReply,
  type ParsedReview,
  parseAdmissionReview,
  type ReviewParse,
  statusBody,
} from "./review.js";
import { LARGE_REVIEW_CHARS, parsesReviews, reviewBody } from "./review-shell.js";

export type { CelAdmissionHandler, CelAdmissionHandlerOptions } from "./cel-handler-types.js";
export {
  CEL_WEBHOOK_NAMES,
  CEL_WEBHOOK_PATHS,
  type CelWebhookRoute,
  celWebhookPath,
  parseCelWebhookPath,
} from "./cel-routes.js";

/** Upstream's message of a policy that blocked or warned: `Policy <name> failed: <message>`. */
export function celPolicyMessage(policy: CachedCelPolicy, rule: RuleResponse): string {
  const verb = rule.status === "error" ? "error" : "failed";
  return `Policy ${policy.compiled.name} ${verb}: ${rule.message}`;
}

/**
 * The labels of `kyverno_<kind>_policy_execution_duration_seconds` for one evaluation; undefined when
 * the policy did not apply (no result).
 */
export function celExecutionLabels(
  policy: CachedCelPolicy,
  response: PolicyResponse,
  review: ParsedReview,
): CelExecutionLabels | undefined {
  const rule = response.rules[0];
  const type = policy.compiled.type;
  if (rule === undefined || (type !== "validate" && type !== "mutate" && type !== "imageValidate"))
    return undefined;
  return {
    type,
    policyName: policy.compiled.name,
    background: policy.compiled.background,
    validationMode: policy.actions.has("Deny") ? "enforce" : "audit",
    resourceKind: response.resource.kind,
    resourceNamespace: response.resource.namespace ?? "",
    operation: review.request.operation,
    result: rule.status,
  };
}

interface Evaluation {
  policy: CachedCelPolicy;
  response: PolicyResponse;
}

/** How long a request is evaluated on the serving thread before it goes to the evaluator (ms). */
const DEFAULT_INLINE_MS = 5;
const DEFAULT_DEADLINE_MS = 10_000;

/** Creates the handler; it holds no per-request state. */
export function createCelAdmissionHandler(options: CelAdmissionHandlerOptions): CelAdmissionHandler {
  const { engine, store, clock, logger } = options;

  const deadlineMs = options.deadlineMs ?? DEFAULT_DEADLINE_MS;
  const largeBody = options.largeReviewChars ?? LARGE_REVIEW_CHARS;
  const offload = createCelOffload({
    engine,
    clock,
    logger,
    inline: createInlineBudget({
      clock,
      inlineMs: options.inlineMs ?? DEFAULT_INLINE_MS,
      ...(options.threadCpuMs ? { threadCpuMs: options.threadCpuMs } : {}),
    }),
  });

  /** The evaluations with their policies (by key, as this thread holds them), metrics recorded. */
  const recorded = (review: ParsedReview, evaluations: readonly CelEvaluation[]): Evaluation[] => {
    const out: Evaluation[] = [];
    for (const { key, response, seconds } of evaluations) {
      const policy = store.get(key);
      if (policy === undefined) continue;
      options.onEvaluated?.(policy, response, seconds, review);
      out.push({ policy, response });
    }
    return out;
  };

  function validate(
    review: ParsedReview,
    evaluated: Evaluation[],
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
      options.events?.admission(responses, true);
      return deny(request.uid, blocked.join("; "));
    }
    if (request.dryRun !== true && request.operation !== "DELETE" && responses.length > 0)
      options.events?.admission(responses, false);
    if (request.dryRun !== true && request.operation !== "DELETE" && responses.length > 0) {
      const object = subject.object;
      options.sink?.offer({
        uid: request.uid,
        timestamp: clock.now(),
        operation: request.operation,
        resource: {
          apiVersion: typeof object.apiVersion === "string" ? object.apiVersion : "",
          kind: subject.kind,
          namespace: subject.namespace,
          name: subject.name,
          uid: typeof object.metadata?.uid === "string" ? object.metadata.uid : "",
        },
        ...(request.userInfo ? { userInfo: request.userInfo } : {}),
        responses,
      });
    }
    return allow(request.uid, warnings);
  }

  function mutate(review: ParsedReview, evaluated: Evaluation[]): AdmissionReviewResponse {
    const { request } = review;
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
        options.sink && admissionResultOf(request, requestSubject(review), responses, "mutate", clock.now());
      if (result !== undefined) options.sink?.offer(result);
    }
    return allowWithPatch(request.uid, patch, warnings);
  }

  /** What a request needs: an answer already, or its policies evaluated (a job). */
  type Prepared = { answer: AdmissionReviewResponse } | PreparedCelJob;

  /** `receivedAt`: when the request arrived (monotonic); its deadline counts from then. */
  function prepare(route: CelWebhookRoute, review: ParsedReview, receivedAt: number): Prepared {
    const { request } = review;
    const subject = requestSubject(review);
    const cfg = options.config();
    const filtered =
      isExcludedRequester(cfg, request.userInfo, undefined) ||
      isFilteredResource(cfg, {
        ...request.kind,
        subresource: request.subResource ?? "",
        namespace: request.namespace ?? subject.namespace,
        name: request.name ?? subject.name,
      });
    if (filtered) return { answer: allow(request.uid) };
    let policies = store.select({
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
    const type = route.type === "mutate" ? "mutate" : "validate";
    const job: CelJob = {
      type,
      policies: policies.map((p) => p.key),
      request: plain,
      subject,
      remainingMs: receivedAt + deadlineMs - clock.monotonic(),
    };
    return { job, policies };
  }

  function decideWith(
    route: CelWebhookRoute,
    review: ParsedReview,
    job: CelJob,
    evaluations: readonly CelEvaluation[],
  ): AdmissionReviewResponse {
    const evaluated = recorded(review, evaluations);
    return route.type === "mutate" ? mutate(review, evaluated) : validate(review, evaluated, job.subject);
  }

  function failed(route: CelWebhookRoute, review: ParsedReview, error: unknown): AdmissionReviewResponse {
    const { uid } = review.request;
    logger.error({ uid, err: error }, "CEL admission handler failed");
    const message = `policy evaluation failed: ${error instanceof Error ? error.message : String(error)}`;
    return route.failurePolicy === "Ignore" ? allow(uid, [message]) : deny(uid, message);
  }

  function handleReview(route: CelWebhookRoute, review: ParsedReview): AdmissionReviewResponse {
    try {
      const prepared = prepare(route, review, clock.monotonic());
      if ("answer" in prepared) return prepared.answer;
      const evaluations = evaluateCelPolicies(
        engine,
        clock,
        prepared.job,
        prepared.policies,
        prepared.job.request,
      );
      return decideWith(route, review, prepared.job, evaluations);
    } catch (error) {
      return failed(route, review, error);
    }
  }

  function serveReview(
    route: CelWebhookRoute,
    review: ParsedReview,
    evaluator: CelEvaluator,
    receivedAt: number,
  ): AdmissionReviewResponse | Promise<AdmissionReviewResponse> {
    try {
      const prepared = prepare(route, review, receivedAt);
      if ("answer" in prepared) return prepared.answer;
      const quick = offload.inline(prepared);
      if (quick !== undefined) return decideWith(route, review, prepared.job, quick);
      return offload
        .offThread(evaluator, prepared)
        .then((evaluations) => decideWith(route, review, prepared.job, evaluations))
        .catch((error: unknown) => failed(route, review, error));
    } catch (error) {
      return failed(route, review, error);
    }
  }

  /**
   * A large validate review: a worker parses it into its shell, the job holds the shells and the text
   * (filled in the worker). Parsed here when no worker could parse it in time.
   */
  async function serveLarge(
    route: CelWebhookRoute,
    body: string,
    evaluator: CelEvaluator & Required<Pick<CelEvaluator, "parseReview">>,
    receivedAt: number,
  ): Promise<HandlerReply> {
    let parsed: ReviewParse;
    try {
      parsed = await evaluator.parseReview(body, receivedAt + deadlineMs - clock.monotonic());
    } catch {
      parsed = parseAdmissionReview(body);
      if (!parsed.ok) return unparsable(route, parsed);
      return { statusCode: 200, body: await serveReview(route, parsed.review, evaluator, receivedAt) };
    }
    if (!parsed.ok) return unparsable(route, parsed);
    const review = parsed.review;
    try {
      const prepared = prepare(route, review, receivedAt);
      if ("answer" in prepared) return { statusCode: 200, body: prepared.answer };
      prepared.job.body = reviewBody(body, review);
      const evaluations = await offload.offThread(evaluator, prepared);
      return { statusCode: 200, body: decideWith(route, review, prepared.job, evaluations) };
    } catch (error) {
      return { statusCode: 200, body: failed(route, review, error) };
    }
  }

  const unparsable = (
    route: CelWebhookRoute,
    parsed: { uid?: string | undefined; message: string },
  ): HandlerReply =>
    parsed.uid === undefined
      ? statusBody(parsed.message)
      : route.failurePolicy === "Ignore"
        ? { statusCode: 200, body: allow(parsed.uid, [parsed.message]) }
        : { statusCode: 200, body: deny(parsed.uid, parsed.message, 400) };

  function handleBody(route: CelWebhookRoute, body: string): HandlerReply {
    const parsed = parseAdmissionReview(body);
    if (!parsed.ok) return unparsable(route, parsed);
    return { statusCode: 200, body: handleReview(route, parsed.review) };
  }

  return {
    handleReview,
    handleBody,
    serveBody(route, body, opts = {}) {
      const evaluator = options.evaluator;
      if (evaluator === undefined) return handleBody(route, body);
      const receivedAt = opts.receivedAt ?? clock.monotonic();
      // A large validate review is parsed and evaluated in workers (see review-shell.ts).
      if (route.type === "validate" && body.length >= largeBody && parsesReviews(evaluator))
        return serveLarge(route, body, evaluator, receivedAt);
      const parsed = parseAdmissionReview(body);
      if (!parsed.ok) return unparsable(route, parsed);
      const answer = serveReview(route, parsed.review, evaluator, receivedAt);
      return answer instanceof Promise
        ? answer.then((b) => ({ statusCode: 200, body: b }))
        : { statusCode: 200, body: answer };
    },
  };
}
