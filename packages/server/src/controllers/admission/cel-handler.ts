/**
 * The webhooks of the CEL policies (`/vpol/...`, `/mpol/...`, `/ivpol/...`, `/gpol/...`, as upstream): one
 * AdmissionReview in, one answer out, without throwing. ValidatingPolicies act on their results by
 * `validationActions` (Deny blocks, Warn warns, Audit only reports), an evaluation error follows the
 * policy's `failurePolicy`, MutatingPolicies patch in order (each sees the object as the ones before
 * it left it), and an ImageValidatingPolicy answers `error` (image verification is not implemented):
 * it blocks under `failurePolicy: Fail` and warns under `Ignore`, never a silent pass. GeneratingPolicies
 * admit and hand their work to the background controller (`cel-generate` UpdateRequests), as do
 * mutate-existing MutatingPolicies (`cel-mutate`). The steps are module functions over one
 * `CelHandlerDeps`: preparing a request (`cel-prepare.ts`), where it is evaluated (`cel-offload.ts`),
 * its answer from the evaluations (`cel-decide.ts`).
 */
import type { PolicyResponse } from "@kyverno-ts/engine";
import type { CelExecutionLabels } from "../../metrics/metrics.js";
import type { CachedCelPolicy } from "../../policycache/cel-policy-store.js";
import { decideWith } from "./cel-decide.js";
import type { CelAdmissionHandler, CelAdmissionHandlerOptions, CelHandlerDeps } from "./cel-handler-types.js";
import { createCelOffload } from "./cel-offload.js";
import { prepare } from "./cel-prepare.js";
import type { CelWebhookRoute } from "./cel-routes.js";
import { type CelEvaluator, evaluateCelPolicies } from "./cel-step.js";
import { createInlineBudget } from "./inline-budget.js";
import {
  type AdmissionReviewResponse,
  allow,
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

/** How long a request is evaluated on the serving thread before it goes to the evaluator (ms). */
const DEFAULT_INLINE_MS = 5;
const DEFAULT_DEADLINE_MS = 10_000;

/** Creates the handler; it holds no per-request state. */
export function createCelAdmissionHandler(options: CelAdmissionHandlerOptions): CelAdmissionHandler {
  const { engine, clock } = options;
  const d: CelHandlerDeps = {
    options,
    engine,
    store: options.store,
    clock,
    logger: options.logger,
    deadlineMs: options.deadlineMs ?? DEFAULT_DEADLINE_MS,
    offload: createCelOffload({
      engine,
      clock,
      logger: options.logger,
      inline: createInlineBudget({
        clock,
        inlineMs: options.inlineMs ?? DEFAULT_INLINE_MS,
        ...(options.threadCpuMs ? { threadCpuMs: options.threadCpuMs } : {}),
        ...(options.onOffload ? { onOffload: options.onOffload } : {}),
      }),
    }),
  };
  const largeBody = options.largeReviewChars ?? LARGE_REVIEW_CHARS;
  return {
    handleReview: (route, review) => handleReview(d, route, review),
    handleBody: (route, body) => handleBody(d, route, body),
    serveBody(route, body, opts = {}) {
      const evaluator = options.evaluator;
      if (evaluator === undefined) return handleBody(d, route, body);
      const receivedAt = opts.receivedAt ?? clock.monotonic();
      // A large validate review is parsed and evaluated in workers (see review-shell.ts).
      if (route.type === "validate" && body.length >= largeBody && parsesReviews(evaluator)) {
        options.onOffload?.("large_body");
        return serveLarge(d, route, body, evaluator, receivedAt);
      }
      return serveBody(d, route, body, evaluator, receivedAt);
    },
  };
}

/** A bug outside the engine: answer per the webhook's failure policy rather than crash or hang. */
function failed(
  d: CelHandlerDeps,
  route: CelWebhookRoute,
  review: ParsedReview,
  error: unknown,
): AdmissionReviewResponse {
  const { uid } = review.request;
  d.logger.error({ uid, err: error }, "CEL admission handler failed");
  const message = `policy evaluation failed: ${error instanceof Error ? error.message : String(error)}`;
  return route.failurePolicy === "Ignore" ? allow(uid, [message]) : deny(uid, message);
}

/** A body that is no AdmissionReview: a status without a uid, per the failure policy with one. */
function unparsable(
  route: CelWebhookRoute,
  parsed: { uid?: string | undefined; message: string },
): HandlerReply {
  if (parsed.uid === undefined) return statusBody(parsed.message);
  return route.failurePolicy === "Ignore"
    ? { statusCode: 200, body: allow(parsed.uid, [parsed.message]) }
    : { statusCode: 200, body: deny(parsed.uid, parsed.message, 400) };
}

/** Answers a review, evaluating on this thread. */
function handleReview(
  d: CelHandlerDeps,
  route: CelWebhookRoute,
  review: ParsedReview,
): AdmissionReviewResponse {
  try {
    const prepared = prepare(d, route, review, d.clock.monotonic());
    if ("answer" in prepared) return prepared.answer;
    const { job, policies } = prepared;
    const evaluations = evaluateCelPolicies(d.engine, d.clock, job, policies, job.request);
    return decideWith(d, route, review, job, evaluations);
  } catch (error) {
    return failed(d, route, review, error);
  }
}

function handleBody(d: CelHandlerDeps, route: CelWebhookRoute, body: string): HandlerReply {
  const parsed = parseAdmissionReview(body);
  if (!parsed.ok) return unparsable(route, parsed);
  return { statusCode: 200, body: handleReview(d, route, parsed.review) };
}

/** Answers a body parsed here: inline within the budget, in the evaluator otherwise. */
function serveBody(
  d: CelHandlerDeps,
  route: CelWebhookRoute,
  body: string,
  evaluator: CelEvaluator,
  receivedAt: number,
): HandlerReply | Promise<HandlerReply> {
  const parsed = parseAdmissionReview(body);
  if (!parsed.ok) return unparsable(route, parsed);
  const answer = serveReview(d, route, parsed.review, evaluator, receivedAt);
  return answer instanceof Promise
    ? answer.then((b) => ({ statusCode: 200, body: b }))
    : { statusCode: 200, body: answer };
}

function serveReview(
  d: CelHandlerDeps,
  route: CelWebhookRoute,
  review: ParsedReview,
  evaluator: CelEvaluator,
  receivedAt: number,
): AdmissionReviewResponse | Promise<AdmissionReviewResponse> {
  try {
    const prepared = prepare(d, route, review, receivedAt);
    if ("answer" in prepared) return prepared.answer;
    const quick = d.offload.inline(prepared);
    if (quick !== undefined) return decideWith(d, route, review, prepared.job, quick);
    return d.offload
      .offThread(evaluator, prepared)
      .then((evaluations) => decideWith(d, route, review, prepared.job, evaluations))
      .catch((error: unknown) => failed(d, route, review, error));
  } catch (error) {
    return failed(d, route, review, error);
  }
}

/**
 * A large validate review: a worker parses it into its shell, the job holds the shells and the text
 * (filled in the worker). Parsed here when no worker could parse it in time.
 */
async function serveLarge(
  d: CelHandlerDeps,
  route: CelWebhookRoute,
  body: string,
  evaluator: CelEvaluator & Required<Pick<CelEvaluator, "parseReview">>,
  receivedAt: number,
): Promise<HandlerReply> {
  let parsed: ReviewParse;
  try {
    parsed = await evaluator.parseReview(body, receivedAt + d.deadlineMs - d.clock.monotonic());
  } catch {
    parsed = parseAdmissionReview(body);
    if (!parsed.ok) return unparsable(route, parsed);
    return { statusCode: 200, body: await serveReview(d, route, parsed.review, evaluator, receivedAt) };
  }
  if (!parsed.ok) return unparsable(route, parsed);
  const review = parsed.review;
  try {
    const prepared = prepare(d, route, review, receivedAt);
    if ("answer" in prepared) return { statusCode: 200, body: prepared.answer };
    prepared.job.body = reviewBody(body, review);
    const evaluations = await d.offload.offThread(evaluator, prepared);
    return { statusCode: 200, body: decideWith(d, route, review, prepared.job, evaluations) };
  } catch (error) {
    return { statusCode: 200, body: failed(d, route, review, error) };
  }
}
