/**
 * The admission handler: one AdmissionReview body in, one answer out, synchronously and without
 * throwing. It parses and checks the review, applies Kyverno's ConfigMap filters, selects policies
 * from the cache index, runs the validate or mutate step under a deadline below the webhook timeout,
 * records metrics and hands results to the reports sink. The HTTP server is a thin layer around it.
 */
import {
  decide,
  decideOffThread,
  decideWithExternalData,
  failed,
  finish,
  type HandlerDeps,
  jobFor,
  offerBackground,
  select,
  unusable,
} from "./handler-steps.js";
import type {
  AdmissionHandler,
  AdmissionHandlerOptions,
  HandleOptions,
  WebhookRoute,
} from "./handler-types.js";
import { inlineAttempt } from "./inline-attempt.js";
import { createInlineBudget } from "./inline-budget.js";
import { handleLargeBody } from "./large-review.js";
import { ReviewMessages } from "./messages.js";
import { requestSubject } from "./request.js";
import {
  type AdmissionReviewResponse,
  type HandlerReply,
  type ParsedReview,
  parseAdmissionReview,
  sniffUid,
} from "./review.js";
import { LARGE_REVIEW_CHARS, parsesReviews } from "./review-shell.js";

export type {
  AdmissionHandler,
  AdmissionHandlerOptions,
  HandleOptions,
  WebhookRoute,
} from "./handler-types.js";

/** How long a request is evaluated on the serving thread before it goes to the evaluator (ms). */
const DEFAULT_INLINE_MS = 5;

/** The per-request budget for a webhook timeout: leave min(1 s, 20 %) for transport. */
export function deadlineFor(webhookTimeoutSeconds: number): number {
  const timeoutMs = webhookTimeoutSeconds * 1000;
  return Math.round(timeoutMs - Math.min(1000, timeoutMs * 0.2));
}

/**
 * Creates the handler. It holds no per-request state; besides the injected cache it only remembers
 * which policies overran their inline attempt lately (see inline-budget.ts).
 */
export function createAdmissionHandler(options: AdmissionHandlerOptions): AdmissionHandler {
  const configOption = options.config;
  const d: HandlerDeps = {
    options,
    engine: options.engine,
    policyCache: options.policyCache,
    clock: options.clock,
    logger: options.logger,
    metrics: options.metrics,
    sink: options.sink,
    config: typeof configOption === "function" ? configOption : () => configOption,
    deadlineMs: options.deadlineMs ?? deadlineFor(options.webhookTimeoutSeconds ?? 10),
    inline: createInlineBudget({
      clock: options.clock,
      inlineMs: options.inlineMs ?? DEFAULT_INLINE_MS,
      ...(options.threadCpuMs ? { threadCpuMs: options.threadCpuMs } : {}),
      ...(options.onOffload ? { onOffload: options.onOffload } : {}),
    }),
  };
  const { clock } = d;
  const largeBody = options.largeReviewChars ?? LARGE_REVIEW_CHARS;

  function handleReview(
    route: WebhookRoute,
    review: ParsedReview,
    opts: HandleOptions = {},
  ): AdmissionReviewResponse | Promise<AdmissionReviewResponse> {
    const receivedAt = opts.receivedAt ?? clock.monotonic();
    const subject = requestSubject(review);
    let answer: AdmissionReviewResponse;
    try {
      const selection = select(d, route, review, subject);
      if ("answer" in selection) {
        answer = selection.answer;
      } else if (
        options.evaluator &&
        !(options.externalData && selection.policies.some((p) => p.compiled.readsExternalData))
      ) {
        const job = jobFor(d, route, review, subject, receivedAt, selection);
        const quick = inlineAttempt(d, job, selection.policies);
        if (quick !== undefined) {
          answer = decide(d, route, review, subject, receivedAt, selection, { effects: true, result: quick });
          offerBackground(d, route, review, subject, answer);
          return finish(d, route, review, subject, receivedAt, answer);
        }
        return decideOffThread(d, route, review, subject, receivedAt, selection, job, options.evaluator)
          .catch((error: unknown) => failed(d, route, review, error))
          .then((offloaded) => {
            offerBackground(d, route, review, subject, offloaded);
            return finish(d, route, review, subject, receivedAt, offloaded);
          });
      } else if (options.externalData && selection.policies.some((p) => p.compiled.readsExternalData)) {
        return decideWithExternalData(d, route, review, subject, receivedAt, selection, options.externalData)
          .catch((error: unknown) => failed(d, route, review, error))
          .then((loaded) => {
            offerBackground(d, route, review, subject, loaded);
            return finish(d, route, review, subject, receivedAt, loaded);
          });
      } else {
        answer = decide(d, route, review, subject, receivedAt, selection, { effects: true });
      }
    } catch (error) {
      // A bug outside the engine: answer per failure policy rather than crash or hang.
      answer = failed(d, route, review, error);
    }
    offerBackground(d, route, review, subject, answer);
    return finish(d, route, review, subject, receivedAt, answer);
  }

  /** Parses a body here and answers it. */
  function handleHere(
    route: WebhookRoute,
    body: string,
    receivedAt: number,
  ): HandlerReply | Promise<HandlerReply> {
    if (body.trim() === "") return unusable(d, route, undefined, ReviewMessages.emptyBody);
    const parsed = parseAdmissionReview(body);
    if (!parsed.ok) return unusable(d, route, parsed.uid, parsed.message);
    const answer = handleReview(route, parsed.review, { receivedAt });
    return answer instanceof Promise
      ? answer.then((body) => ({ statusCode: 200, body }))
      : { statusCode: 200, body: answer };
  }

  return {
    deadlineMs: d.deadlineMs,
    handleReview,
    handleBody(route, body, opts = {}) {
      const receivedAt = opts.receivedAt ?? clock.monotonic();
      const evaluator = options.evaluator;
      if (body.length >= largeBody && parsesReviews(evaluator)) {
        options.onOffload?.("large_body");
        return handleLargeBody(d, route, body, receivedAt, evaluator, handleHere);
      }
      return handleHere(route, body, receivedAt);
    },
    rejectBody(route, head, message) {
      return unusable(d, route, sniffUid(head), message);
    },
  };
}
