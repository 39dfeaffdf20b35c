/**
 * The admission handler: one AdmissionReview body in, one answer out, synchronously and without
 * throwing. It parses and checks the review, applies Kyverno's ConfigMap filters, selects policies
 * from the cache index, runs the validate or mutate step under a deadline below the webhook timeout,
 * records metrics and hands results to the reports sink. The HTTP server is a thin layer around it.
 */
import type { KubeObject } from "@kyverno-ts/api";
import type { ContextLoader, Engine, EngineRequest, PolicyResponse, UserInfo } from "@kyverno-ts/engine";
import type { ServerClock } from "../clock.js";
import type { PolicyEvents } from "../events/policy-events.js";
import type { ScanContext } from "../external-data/scan-context.js";
import type { Logger } from "../logger.js";
import type { AdmissionMetrics, WebhookKind } from "../metrics/metrics.js";
import type { CachedPolicy, FailurePolicy, PolicyCache } from "../policycache/policy-cache.js";
import { type BackgroundSink, backgroundIntents, backgroundPolicies } from "./background.js";
import type { StepContext } from "./evaluation.js";
import { isExcludedRequester, isFilteredResource, type KyvernoConfig } from "./filters.js";
import { EvaluationMessages, ReviewMessages } from "./messages.js";
import { type MutationOutcome, runMutation } from "./mutate.js";
import {
  engineRequest,
  type RequesterRoles,
  type RequestSubject,
  type ResourceKindOf,
  requestSubject,
} from "./request.js";
import { type AdmissionPhase, type AdmissionResultSink, admissionResultOf } from "./results.js";
import {
  type AdmissionReviewResponse,
  allow,
  allowWithPatch,
  deny,
  type HandlerReply,
  type ParsedReview,
  parseAdmissionReview,
  sniffUid,
  statusBody,
} from "./review.js";
import {
  abandonedOutcome,
  replayRules,
  runJob,
  type StepEvaluator,
  type StepJob,
  type StepResult,
  stepJob,
} from "./step.js";
import { runValidation, type ValidationOutcome } from "./validate.js";

/** Which webhook a request came in on: `/validate/fail` is `{ type: "validate", failurePolicy: "Fail" }`. */
export interface WebhookRoute {
  type: "validate" | "mutate";
  /** Only policies with this failure policy are evaluated (upstream's split); all when undefined. */
  failurePolicy?: FailurePolicy;
}

/** Options of `createAdmissionHandler`. */
export interface AdmissionHandlerOptions {
  engine: Engine;
  policyCache: PolicyCache;
  clock: ServerClock;
  logger: Logger;
  metrics?: AdmissionMetrics;
  /** Kyverno's ConfigMap settings, or a getter returning the latest ones (an informer updates them). */
  config: KyvernoConfig | (() => KyvernoConfig);
  /** Receives results of admitted, non-dry-run requests for reports. */
  sink?: AdmissionResultSink;
  /**
   * Kubernetes Events of validate results (upstream's): a denial's policy Events, and for admitted,
   * non-dry-run requests other than DELETE the policy and resource Events. Must only enqueue.
   */
  events?: PolicyEvents;
  /** Labels of a namespace for `namespaceSelector` (from an informer cache); unknown → undefined. */
  namespaceLabels?: (namespace: string) => Record<string, string> | undefined;
  /** Roles and cluster roles of a requester (from RBAC informers). */
  resolveRoles?: (user: UserInfo) => RequesterRoles;
  /**
   * The kind of an addressed resource, for matching subresource requests (`deployments/scale` →
   * `Deployment/scale`); built-in kinds only when omitted.
   */
  resourceKind?: ResourceKindOf;
  /** The webhook timeout the API server uses (default 10 s): the deadline is set below it. */
  webhookTimeoutSeconds?: number;
  /** Overrides the per-request budget in milliseconds (default: the timeout minus min(1 s, 20 %)). */
  deadlineMs?: number;
  /**
   * Creates the loader of one request's external data (`configMap`, `apiCall` and `globalReference`
   * context entries), each fetch bounded by `timeoutMs` (the time left before the deadline). Without
   * it such entries stay unresolved and their rules end in `error`.
   */
  externalData?: (timeoutMs: number) => ScanContext;
  /**
   * Evaluates steps off this thread (the evaluation pool), so a slow evaluation holds no other request
   * or probe; inline when omitted. Requests reading external data are evaluated inline.
   */
  evaluator?: StepEvaluator;
  /**
   * With an evaluator: how long (ms) a request is first evaluated on this thread, which costs no
   * thread hop; one that needs longer is stopped there and evaluated by the evaluator (default 5;
   * 0 sends every request to the evaluator).
   */
  inlineMs?: number;
  /**
   * Receives the generate / mutate-existing work of admitted requests (UpdateRequests), computed off
   * the request path; without it such rules do nothing at admission.
   */
  background?: BackgroundSink;
}

/** Per-call options. */
export interface HandleOptions {
  /** Monotonic time the request arrived (time spent queued counts against the deadline). */
  receivedAt?: number;
}

/** The handler; see `createAdmissionHandler`. */
export interface AdmissionHandler {
  /**
   * Answers a raw request body (JSON text). Never throws or rejects. The answer is immediate unless a
   * selected policy reads external data (then a promise, settled within the deadline).
   */
  handleBody(
    route: WebhookRoute,
    body: string,
    options?: HandleOptions,
  ): HandlerReply | Promise<HandlerReply>;
  /** Answers a body that could not be read whole (too large): an AdmissionReview if `head` shows a uid. */
  rejectBody(route: WebhookRoute, head: string, message: string): HandlerReply;
  /** Answers an already parsed review, immediately or (external data) as a promise. Never throws or rejects. */
  handleReview(
    route: WebhookRoute,
    review: ParsedReview,
    options?: HandleOptions,
  ): AdmissionReviewResponse | Promise<AdmissionReviewResponse>;
  /** The per-request evaluation budget in milliseconds. */
  readonly deadlineMs: number;
}

/** How long a request is evaluated on the serving thread before it goes to the evaluator (ms). */
const DEFAULT_INLINE_MS = 5;

/** The per-request budget for a webhook timeout: leave min(1 s, 20 %) for transport. */
export function deadlineFor(webhookTimeoutSeconds: number): number {
  const timeoutMs = webhookTimeoutSeconds * 1000;
  return Math.round(timeoutMs - Math.min(1000, timeoutMs * 0.2));
}

/** The `request_webhook` metric label of a route. */
function webhookKind(route: WebhookRoute): WebhookKind {
  return route.type === "validate" ? "ValidatingWebhookConfiguration" : "MutatingWebhookConfiguration";
}

/** The policies selected for a request and the requester's roles. */
interface Selection {
  policies: readonly CachedPolicy[];
  roles: RequesterRoles | undefined;
}

/** Creates the handler. It holds no per-request state; everything mutable lives in the injected cache. */
export function createAdmissionHandler(options: AdmissionHandlerOptions): AdmissionHandler {
  const { engine, policyCache, clock, logger, metrics, sink } = options;
  const config =
    typeof options.config === "function" ? options.config : () => options.config as KyvernoConfig;
  const deadlineMs = options.deadlineMs ?? deadlineFor(options.webhookTimeoutSeconds ?? 10);
  const inlineMs = options.inlineMs ?? DEFAULT_INLINE_MS;

  /** Malformed but with a uid: answer per the endpoint's failure policy (all policies count as Fail). */
  function unusable(route: WebhookRoute, uid: string | undefined, message: string): HandlerReply {
    logger.warn({ uid, webhook: route.type, reason: message }, "invalid admission request");
    metrics?.admissionError(webhookKind(route), "bad_request");
    if (uid === undefined) return statusBody(message);
    if (route.failurePolicy === "Ignore")
      return { statusCode: 200, body: allow(uid, [EvaluationMessages.ignoredBadRequest(message)]) };
    return { statusCode: 200, body: deny(uid, message, 400) };
  }

  /** The policies a request needs, or the answer when it needs none (filtered, nothing selected). */
  function select(
    route: WebhookRoute,
    review: ParsedReview,
    subject: RequestSubject,
  ): { answer: AdmissionReviewResponse } | Selection {
    const { request } = review;
    const cfg = config();
    const roles =
      request.userInfo && options.resolveRoles ? options.resolveRoles(request.userInfo) : undefined;
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
    const policies = policyCache.select(
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
  function decide(
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
      clock,
      ruleMetrics: run.effects
        ? metrics?.ruleResults({
            resourceKind: subject.kind,
            resourceNamespace: subject.namespace,
            operation: request.operation,
            dryRun: request.dryRun === true,
          })
        : undefined,
      deadline: receivedAt + deadlineMs,
      deadlineMs,
      now: clock.monotonic(),
    };
    const labels =
      options.namespaceLabels && subject.namespace ? options.namespaceLabels(subject.namespace) : undefined;
    const base = engineRequest(review, subject, roles, [], options.resourceKind);
    if (labels) base.namespaceLabels = labels;
    if (run.loader) base.contextLoader = run.loader;
    // The engine stops a rule still running at the deadline (on the wall clock it reads).
    base.deadline = clock.now() + (ctx.deadline - ctx.now);
    if (run.result) replayRules(run.result.rules, ctx.ruleMetrics);
    const requestFor = (policy: CachedPolicy, resource?: KubeObject): EngineRequest => {
      const exceptions = policyCache.exceptionsFor(policy);
      if (resource === undefined && exceptions.length === 0) return base;
      return { ...base, exceptions, ...(resource ? { resource } : {}) };
    };
    if (route.type === "mutate") {
      const outcome =
        (run.result?.outcome as MutationOutcome | undefined) ??
        runMutation(engine, ctx, policies, requestFor);
      if (run.effects && outcome.allowed) offerResults(request, subject, outcome.responses, "mutate");
      if (run.effects && options.events !== undefined && outcome.responses.length > 0) {
        // Denied: the policy that blocked is the last one evaluated (the resource does not exist).
        if (!outcome.allowed) options.events.mutation(outcome.responses.slice(-1), true);
        else if (request.dryRun !== true) options.events.mutation(outcome.responses, false);
      }
      return outcome.allowed
        ? allowWithPatch(request.uid, outcome.patch, outcome.warnings)
        : deny(request.uid, outcome.message ?? "");
    }
    const outcome =
      (run.result?.outcome as ValidationOutcome | undefined) ??
      runValidation(engine, ctx, policies, requestFor);
    if (run.effects && options.events !== undefined && outcome.responses.length > 0) {
      if (!outcome.allowed) options.events.admission(outcome.responses, true);
      else if (request.dryRun !== true && request.operation !== "DELETE")
        options.events.admission(outcome.responses, false);
    }
    if (run.effects && outcome.allowed) offerResults(request, subject, outcome.responses, "validate");
    return outcome.allowed ? allow(request.uid, outcome.warnings) : deny(request.uid, outcome.message ?? "");
  }

  /** Hands an admitted request's responses to the reports sink. */
  function offerResults(
    request: ParsedReview["request"],
    subject: RequestSubject,
    responses: readonly PolicyResponse[],
    phase: AdmissionPhase,
  ): void {
    const result = sink && admissionResultOf(request, subject, responses, phase, clock.now());
    if (result !== undefined) sink?.offer(result);
  }

  /** Answers per the route's failure policy when something outside the engine threw (a bug). */
  function failed(route: WebhookRoute, review: ParsedReview, error: unknown): AdmissionReviewResponse {
    const { uid } = review.request;
    logger.error({ uid, err: error }, "admission handler failed");
    metrics?.admissionError(webhookKind(route), "internal");
    const message = EvaluationMessages.engineError(error);
    return route.failurePolicy === "Ignore" ? allow(uid, [message]) : deny(uid, message);
  }

  /** Loads what the policies read (rounds of evaluation without effects), then decides with it. */
  async function decideWithExternalData(
    route: WebhookRoute,
    review: ParsedReview,
    subject: RequestSubject,
    receivedAt: number,
    selection: Selection,
    externalData: (timeoutMs: number) => ScanContext,
  ): Promise<AdmissionReviewResponse> {
    const remaining = Math.max(1, receivedAt + deadlineMs - clock.monotonic());
    const data = externalData(remaining);
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), remaining);
    try {
      await data.evaluate(
        () => decide(route, review, subject, receivedAt, selection, { effects: false, loader: data.loader }),
        deadline.signal,
      );
    } finally {
      clearTimeout(timer);
    }
    return decide(route, review, subject, receivedAt, selection, { effects: true, loader: data.loader });
  }

  /**
   * Evaluates in the evaluator (off this event loop), then decides with its outcome here, where
   * metrics, events and reports are. Work that could not be evaluated in time is answered as at the
   * deadline: per failure policy.
   */
  async function decideOffThread(
    route: WebhookRoute,
    review: ParsedReview,
    subject: RequestSubject,
    receivedAt: number,
    selection: Selection,
    job: StepJob,
    evaluator: StepEvaluator,
  ): Promise<AdmissionReviewResponse> {
    job.remainingMs = receivedAt + deadlineMs - clock.monotonic();
    let result: StepResult;
    try {
      result = await evaluator.evaluate(job, subject.namespace);
    } catch (error) {
      logger.warn({ uid: review.request.uid, reason: String(error) }, "admission evaluation abandoned");
      result = { outcome: abandonedOutcome(route.type, selection.policies, deadlineMs), rules: [] };
    }
    return decide(route, review, subject, receivedAt, selection, { effects: true, result });
  }

  /** The step of a request as a job for the evaluator (or the inline attempt). */
  function jobFor(
    route: WebhookRoute,
    review: ParsedReview,
    subject: RequestSubject,
    receivedAt: number,
    selection: Selection,
  ): StepJob {
    const base = engineRequest(review, subject, selection.roles, [], options.resourceKind);
    const labels =
      options.namespaceLabels && subject.namespace ? options.namespaceLabels(subject.namespace) : undefined;
    if (labels) base.namespaceLabels = labels;
    const remainingMs = receivedAt + deadlineMs - clock.monotonic();
    return stepJob(route.type, selection.policies, base, review, subject, { remainingMs, deadlineMs });
  }

  /**
   * Evaluates a job here within `inlineMs` (the engine stops at that deadline): its result when it
   * finished in time, undefined when it needs the evaluator. Most requests take well under a
   * millisecond, and the hop to a worker costs more than that (bench:admission).
   */
  function inlineAttempt(job: StepJob): StepResult | undefined {
    if (inlineMs <= 0 || job.remainingMs <= inlineMs) return undefined;
    const started = clock.monotonic();
    const result = runJob(engine, policyCache, clock, { ...job, remainingMs: inlineMs });
    return clock.monotonic() - started < inlineMs ? result : undefined;
  }

  /** Logs a denial and records `kyverno_admission_*` for an answered request. */
  function finish(
    route: WebhookRoute,
    review: ParsedReview,
    subject: RequestSubject,
    receivedAt: number,
    answer: AdmissionReviewResponse,
  ): AdmissionReviewResponse {
    const { request } = review;
    const allowed = answer.response.allowed;
    if (!allowed)
      logger.info(
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
    if (metrics) {
      const elapsedMs = clock.monotonic() - receivedAt;
      const webhook = webhookKind(route);
      metrics.admissionRequest(
        {
          resourceKind: subject.kind,
          resourceNamespace: subject.namespace,
          operation: request.operation,
          allowed,
          webhook,
        },
        elapsedMs / 1000,
      );
      if (elapsedMs > deadlineMs) metrics.admissionError(webhook, "timeout");
    }
    return answer;
  }

  /** Hands the background work of an admitted request to the sink (a thunk; nothing is evaluated here). */
  function offerBackground(
    route: WebhookRoute,
    review: ParsedReview,
    subject: RequestSubject,
    answer: AdmissionReviewResponse,
  ): void {
    const { request } = review;
    const sink = options.background;
    if (sink === undefined || route.type !== "validate" || !answer.response.allowed) return;
    if (request.dryRun === true || request.subResource) return;
    const cfg = config();
    const roles =
      request.userInfo && options.resolveRoles ? options.resolveRoles(request.userInfo) : undefined;
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
    const policies = backgroundPolicies(policyCache, {
      kind: subject.kind,
      namespace: subject.namespace,
      // A deleted trigger's downstream goes whatever operations the rule matches.
      operation: request.operation === "DELETE" ? "CREATE" : request.operation,
      ...(route.failurePolicy ? { failurePolicy: route.failurePolicy } : {}),
    });
    if (policies.length === 0) return;
    const labels =
      options.namespaceLabels && subject.namespace ? options.namespaceLabels(subject.namespace) : undefined;
    sink.offer(() => {
      const base = engineRequest(review, subject, roles, [], options.resourceKind);
      if (labels) base.namespaceLabels = labels;
      base.background = false;
      return backgroundIntents(engine, policies, review, subject, (policy) => ({
        ...base,
        exceptions: policyCache.exceptionsFor(policy),
      }));
    });
  }

  function handleReview(
    route: WebhookRoute,
    review: ParsedReview,
    opts: HandleOptions = {},
  ): AdmissionReviewResponse | Promise<AdmissionReviewResponse> {
    const receivedAt = opts.receivedAt ?? clock.monotonic();
    const subject = requestSubject(review);
    let answer: AdmissionReviewResponse;
    try {
      const selection = select(route, review, subject);
      if ("answer" in selection) {
        answer = selection.answer;
      } else if (
        options.evaluator &&
        !(options.externalData && selection.policies.some((p) => p.compiled.readsExternalData))
      ) {
        const job = jobFor(route, review, subject, receivedAt, selection);
        const quick = inlineAttempt(job);
        if (quick !== undefined) {
          answer = decide(route, review, subject, receivedAt, selection, { effects: true, result: quick });
          offerBackground(route, review, subject, answer);
          return finish(route, review, subject, receivedAt, answer);
        }
        return decideOffThread(route, review, subject, receivedAt, selection, job, options.evaluator)
          .catch((error: unknown) => failed(route, review, error))
          .then((offloaded) => {
            offerBackground(route, review, subject, offloaded);
            return finish(route, review, subject, receivedAt, offloaded);
          });
      } else if (options.externalData && selection.policies.some((p) => p.compiled.readsExternalData)) {
        return decideWithExternalData(route, review, subject, receivedAt, selection, options.externalData)
          .catch((error: unknown) => failed(route, review, error))
          .then((loaded) => {
            offerBackground(route, review, subject, loaded);
            return finish(route, review, subject, receivedAt, loaded);
          });
      } else {
        answer = decide(route, review, subject, receivedAt, selection, { effects: true });
      }
    } catch (error) {
      // A bug outside the engine: answer per failure policy rather than crash or hang.
      answer = failed(route, review, error);
    }
    offerBackground(route, review, subject, answer);
    return finish(route, review, subject, receivedAt, answer);
  }

  return {
    deadlineMs,
    handleReview,
    handleBody(route, body, opts = {}) {
      const receivedAt = opts.receivedAt ?? clock.monotonic();
      if (body.trim() === "") return unusable(route, undefined, ReviewMessages.emptyBody);
      const parsed = parseAdmissionReview(body);
      if (!parsed.ok) return unusable(route, parsed.uid, parsed.message);
      const answer = handleReview(route, parsed.review, { receivedAt });
      return answer instanceof Promise
        ? answer.then((body) => ({ statusCode: 200, body }))
        : { statusCode: 200, body: answer };
    },
    rejectBody(route, head, message) {
      return unusable(route, sniffUid(head), message);
    },
  };
}
