/**
 * The steps of answering one admission request, as functions over the handler's dependencies
 * (`HandlerDeps`, built once by `createAdmissionHandler`): select the policies, decide (inline, off
 * this thread in the evaluation pool, or after loading external data), record the answer, offer the
 * results to reports and the background work to the UpdateRequest intake.
 */
import type { KubeObject } from "@kyverno-ts/api";
import type { ContextLoader, Engine, EngineRequest, PolicyResponse } from "@kyverno-ts/engine";
import type { ServerClock } from "../../clock.js";
import type { ScanContext } from "../../external-data/scan-context.js";
import type { Logger } from "../../logger.js";
import type { AdmissionMetrics, WebhookKind } from "../../metrics/metrics.js";
import type { CachedPolicy, PolicyCache } from "../../policycache/policy-cache.js";
import { backgroundIntents, backgroundPolicies } from "./background.js";
import type { StepContext } from "./evaluation.js";
import { isExcludedRequester, isFilteredResource, type KyvernoConfig } from "./filters.js";
import type { AdmissionHandlerOptions, WebhookRoute } from "./handler-types.js";
import type { InlineBudget } from "./inline-budget.js";
import { EvaluationMessages } from "./messages.js";
import { type MutationOutcome, runMutation } from "./mutate.js";
import { engineRequest, type RequesterRoles, type RequestSubject } from "./request.js";
import { type AdmissionPhase, type AdmissionResultSink, admissionResultOf } from "./results.js";
import {
  type AdmissionReviewResponse,
  allow,
  allowWithPatch,
  deny,
  type HandlerReply,
  type ParsedReview,
  statusBody,
} from "./review.js";
import {
  abandonedOutcome,
  replayRules,
  type StepEvaluator,
  type StepJob,
  type StepResult,
  stepJob,
} from "./step.js";
import { runValidation, type ValidationOutcome } from "./validate.js";

/** What every step reads: the handler's options and what `createAdmissionHandler` derived from them. */
export interface HandlerDeps {
  readonly options: AdmissionHandlerOptions;
  readonly engine: Engine;
  readonly policyCache: PolicyCache;
  readonly clock: ServerClock;
  readonly logger: Logger;
  readonly metrics: AdmissionMetrics | undefined;
  readonly sink: AdmissionResultSink | undefined;
  /** Kyverno's ConfigMap settings as they are now. */
  readonly config: () => KyvernoConfig;
  /** The per-request evaluation budget in milliseconds. */
  readonly deadlineMs: number;
  /** The inline attempt's budget and the policies found slow in it (see inline-budget.ts). */
  readonly inline: InlineBudget;
}

/** The policies selected for a request and the requester's roles. */
export interface Selection {
  policies: readonly CachedPolicy[];
  roles: RequesterRoles | undefined;
}

/** The `request_webhook` metric label of a route. */
function webhookKind(route: WebhookRoute): WebhookKind {
  return route.type === "validate" ? "ValidatingWebhookConfiguration" : "MutatingWebhookConfiguration";
}

/** Malformed but with a uid: answer per the endpoint's failure policy (all policies count as Fail). */
export function unusable(
  d: HandlerDeps,
  route: WebhookRoute,
  uid: string | undefined,
  message: string,
): HandlerReply {
  d.logger.warn({ uid, webhook: route.type, reason: message }, "invalid admission request");
  d.metrics?.admissionError(webhookKind(route), "bad_request");
  if (uid === undefined) return statusBody(message);
  if (route.failurePolicy === "Ignore")
    return { statusCode: 200, body: allow(uid, [EvaluationMessages.ignoredBadRequest(message)]) };
  return { statusCode: 200, body: deny(uid, message, 400) };
}

/** The policies a request needs, or the answer when it needs none (filtered, nothing selected). */
export function select(
  d: HandlerDeps,
  route: WebhookRoute,
  review: ParsedReview,
  subject: RequestSubject,
): { answer: AdmissionReviewResponse } | Selection {
  const { request } = review;
  const cfg = d.config();
  const roles =
    request.userInfo && d.options.resolveRoles ? d.options.resolveRoles(request.userInfo) : undefined;
  const filtered =
    isExcludedRequester(cfg, request.userInfo, roles) ||
    isFilteredResource(cfg, {
      ...request.kind,
      subresource: request.subResource ?? "",
      namespace: request.namespace ?? subject.namespace,
      name: request.name ?? subject.name,
    });
  if (filtered) return { answer: allow(request.uid) };
  const kind = request.subResource ? undefined : subject.kind;
  const { failurePolicy } = route;
  const policies = d.policyCache.select(
    failurePolicy
      ? {
          type: route.type,
          kind,
          namespace: subject.namespace,
          operation: request.operation,
          failurePolicy,
        }
      : { type: route.type, kind, namespace: subject.namespace, operation: request.operation },
  );
  if (policies.length === 0 || (route.type === "mutate" && request.operation === "DELETE"))
    return { answer: allow(request.uid) };
  return { policies, roles };
}

/**
 * Evaluates the selected policies. A run with `effects` records metrics and hands results to the
 * sink; the runs that only discover which external data the policies read have none.
 */
export function decide(
  d: HandlerDeps,
  route: WebhookRoute,
  review: ParsedReview,
  subject: RequestSubject,
  receivedAt: number,
  { policies, roles }: Selection,
  run: { effects: boolean; loader?: ContextLoader; result?: StepResult },
): AdmissionReviewResponse {
  const { request } = review;
  const ctx: StepContext = {
    review,
    subject,
    clock: d.clock,
    ruleMetrics: run.effects
      ? d.metrics?.ruleResults({
          resourceKind: subject.kind,
          resourceNamespace: subject.namespace,
          operation: request.operation,
          dryRun: request.dryRun === true,
        })
      : undefined,
    deadline: receivedAt + d.deadlineMs,
    deadlineMs: d.deadlineMs,
    now: d.clock.monotonic(),
  };
  if (run.result) replayRules(run.result.rules, ctx.ruleMetrics);
  if (route.type === "mutate") {
    const outcome =
      (run.result?.outcome as MutationOutcome | undefined) ??
      runMutation(d.engine, ctx, policies, requestsHere(d, review, subject, roles, ctx, run.loader));
    if (run.effects && outcome.allowed) offerResults(d, request, subject, outcome.responses, "mutate");
    if (run.effects && d.options.events !== undefined && outcome.responses.length > 0) {
      // Denied: the policy that blocked is the last one evaluated (the resource does not exist).
      if (!outcome.allowed) d.options.events.mutation(outcome.responses.slice(-1), true);
      else if (request.dryRun !== true) d.options.events.mutation(outcome.responses, false);
    }
    return outcome.allowed
      ? allowWithPatch(request.uid, outcome.patch, outcome.warnings)
      : deny(request.uid, outcome.message ?? "");
  }
  const outcome =
    (run.result?.outcome as ValidationOutcome | undefined) ??
    runValidation(d.engine, ctx, policies, requestsHere(d, review, subject, roles, ctx, run.loader));
  if (run.effects && d.options.events !== undefined && outcome.responses.length > 0) {
    if (!outcome.allowed) d.options.events.admission(outcome.responses, true);
    else if (request.dryRun !== true && request.operation !== "DELETE")
      d.options.events.admission(outcome.responses, false);
  }
  if (run.effects && outcome.allowed) offerResults(d, request, subject, outcome.responses, "validate");
  return outcome.allowed ? allow(request.uid, outcome.warnings) : deny(request.uid, outcome.message ?? "");
}

/**
 * The engine request of each policy evaluated on this thread: the request's base (namespace labels,
 * loader, the deadline on the wall clock the engine reads) with the policy's PolicyExceptions and,
 * for mutate, the object as the policies before it patched it. Only built when this thread evaluates
 * (not for an outcome decided inline or by a worker).
 */
function requestsHere(
  d: HandlerDeps,
  review: ParsedReview,
  subject: RequestSubject,
  roles: RequesterRoles | undefined,
  ctx: StepContext,
  loader: ContextLoader | undefined,
): (policy: CachedPolicy, resource?: KubeObject) => EngineRequest {
  const labels =
    d.options.namespaceLabels && subject.namespace ? d.options.namespaceLabels(subject.namespace) : undefined;
  const base = engineRequest(review, subject, roles, [], d.options.resourceKind);
  if (labels) base.namespaceLabels = labels;
  if (loader) base.contextLoader = loader;
  // The engine stops a rule still running at the deadline (on the wall clock it reads).
  base.deadline = d.clock.now() + (ctx.deadline - ctx.now);
  return (policy, resource) => {
    const exceptions = d.policyCache.exceptionsFor(policy);
    if (resource === undefined && exceptions.length === 0) return base;
    return { ...base, exceptions, ...(resource ? { resource } : {}) };
  };
}

/** Hands an admitted request's responses to the reports sink. */
export function offerResults(
  d: HandlerDeps,
  request: ParsedReview["request"],
  subject: RequestSubject,
  responses: readonly PolicyResponse[],
  phase: AdmissionPhase,
): void {
  const result = d.sink && admissionResultOf(request, subject, responses, phase, d.clock.now());
  if (result !== undefined) d.sink?.offer(result);
}

/** Answers per the route's failure policy when something outside the d.engine threw (a bug). */
export function failed(
  d: HandlerDeps,
  route: WebhookRoute,
  review: ParsedReview,
  error: unknown,
): AdmissionReviewResponse {
  const { uid } = review.request;
  d.logger.error({ uid, err: error }, "admission handler failed");
  d.metrics?.admissionError(webhookKind(route), "internal");
  const message = EvaluationMessages.engineError(error);
  return route.failurePolicy === "Ignore" ? allow(uid, [message]) : deny(uid, message);
}

/** Loads what the policies read (rounds of evaluation without effects), then decides with it. */
export async function decideWithExternalData(
  d: HandlerDeps,
  route: WebhookRoute,
  review: ParsedReview,
  subject: RequestSubject,
  receivedAt: number,
  selection: Selection,
  externalData: (timeoutMs: number) => ScanContext,
): Promise<AdmissionReviewResponse> {
  const remaining = Math.max(1, receivedAt + d.deadlineMs - d.clock.monotonic());
  const data = externalData(remaining);
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), remaining);
  try {
    await data.evaluate(
      () => decide(d, route, review, subject, receivedAt, selection, { effects: false, loader: data.loader }),
      deadline.signal,
    );
  } finally {
    clearTimeout(timer);
  }
  return decide(d, route, review, subject, receivedAt, selection, { effects: true, loader: data.loader });
}

/**
 * Evaluates in the evaluator (off this event loop), then decides with its outcome here, where
 * d.metrics, events and reports are. Work that could not be evaluated in time is answered as at the
 * deadline: per failure policy.
 */
export async function decideOffThread(
  d: HandlerDeps,
  route: WebhookRoute,
  review: ParsedReview,
  subject: RequestSubject,
  receivedAt: number,
  selection: Selection,
  job: StepJob,
  evaluator: StepEvaluator,
): Promise<AdmissionReviewResponse> {
  job.remainingMs = receivedAt + d.deadlineMs - d.clock.monotonic();
  let result: StepResult;
  try {
    result = await evaluator.evaluate(job, subject.namespace);
  } catch (error) {
    d.logger.warn({ uid: review.request.uid, reason: String(error) }, "admission evaluation abandoned");
    result = { outcome: abandonedOutcome(route.type, selection.policies, d.deadlineMs), rules: [] };
  }
  return decide(d, route, review, subject, receivedAt, selection, { effects: true, result });
}

/** The step of a request as a job for the evaluator (or the inline attempt). */
export function jobFor(
  d: HandlerDeps,
  route: WebhookRoute,
  review: ParsedReview,
  subject: RequestSubject,
  receivedAt: number,
  selection: Selection,
): StepJob {
  const base = engineRequest(review, subject, selection.roles, [], d.options.resourceKind);
  const labels =
    d.options.namespaceLabels && subject.namespace ? d.options.namespaceLabels(subject.namespace) : undefined;
  if (labels) base.namespaceLabels = labels;
  const remainingMs = receivedAt + d.deadlineMs - d.clock.monotonic();
  return stepJob(route.type, selection.policies, base, review, subject, {
    remainingMs,
    deadlineMs: d.deadlineMs,
  });
}

/** Logs a denial and records `kyverno_admission_*` for an answered request. */
export function finish(
  d: HandlerDeps,
  route: WebhookRoute,
  review: ParsedReview,
  subject: RequestSubject,
  receivedAt: number,
  answer: AdmissionReviewResponse,
): AdmissionReviewResponse {
  const { request } = review;
  const allowed = answer.response.allowed;
  if (!allowed)
    d.logger.info(
      {
        uid: request.uid,
        kind: subject.kind,
        namespace: subject.namespace,
        name: subject.name,
        operation: request.operation,
        webhook: route.type,
      },
      "admission request denied",
    );
  if (d.metrics) {
    const elapsedMs = d.clock.monotonic() - receivedAt;
    const webhook = webhookKind(route);
    d.metrics.admissionRequest(
      {
        resourceKind: subject.kind,
        resourceNamespace: subject.namespace,
        operation: request.operation,
        allowed,
        webhook,
      },
      elapsedMs / 1000,
    );
    if (elapsedMs > d.deadlineMs) d.metrics.admissionError(webhook, "timeout");
  }
  return answer;
}

/** Hands the background work of an admitted request to the sink (a thunk; nothing is evaluated here). */
export function offerBackground(
  d: HandlerDeps,
  route: WebhookRoute,
  review: ParsedReview,
  subject: RequestSubject,
  answer: AdmissionReviewResponse,
): void {
  const { request } = review;
  const sink = d.options.background;
  if (sink === undefined || route.type !== "validate" || !answer.response.allowed) return;
  if (request.dryRun === true || request.subResource) return;
  const cfg = d.config();
  const roles =
    request.userInfo && d.options.resolveRoles ? d.options.resolveRoles(request.userInfo) : undefined;
  if (
    isExcludedRequester(cfg, request.userInfo, roles) ||
    isFilteredResource(cfg, {
      ...request.kind,
      subresource: "",
      namespace: subject.namespace,
      name: subject.name,
    })
  )
    return;
  const policies = backgroundPolicies(d.policyCache, {
    kind: subject.kind,
    namespace: subject.namespace,
    // A deleted trigger's downstream goes whatever operations the rule matches.
    operation: request.operation === "DELETE" ? "CREATE" : request.operation,
    ...(route.failurePolicy ? { failurePolicy: route.failurePolicy } : {}),
  });
  if (policies.length === 0) return;
  const labels =
    d.options.namespaceLabels && subject.namespace ? d.options.namespaceLabels(subject.namespace) : undefined;
  sink.offer(() => {
    const base = engineRequest(review, subject, roles, [], d.options.resourceKind);
    if (labels) base.namespaceLabels = labels;
    base.background = false;
    return backgroundIntents(d.engine, policies, review, subject, (policy) => ({
      ...base,
      exceptions: d.policyCache.exceptionsFor(policy),
    }));
  });
}
