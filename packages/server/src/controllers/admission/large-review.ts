/**
 * The classic handler's path for a large body with an evaluator (see review-shell.ts): a worker
 * parses it into its shell, this thread filters and selects on the shell, and a worker evaluates the
 * job with the whole objects filled in from the text. A request that needs its whole objects here
 * (policies reading external data, generate or mutate-existing work for the background controller)
 * is parsed here after all and handled as any other.
 */
import { backgroundPolicies } from "./background.js";
import {
  decideOffThread,
  failed,
  finish,
  type HandlerDeps,
  jobFor,
  select,
  unusable,
} from "./handler-steps.js";
import type { WebhookRoute } from "./handler-types.js";
import { requestSubject } from "./request.js";
import type { AdmissionReviewResponse, HandlerReply, ParsedReview, ReviewParse } from "./review.js";
import { reviewBody } from "./review-shell.js";
import type { StepEvaluator } from "./step.js";

/** An evaluator that parses large reviews. */
export type ParsingEvaluator = StepEvaluator & Required<Pick<StepEvaluator, "parseReview">>;

/** Handles a review parsed here (the handler's usual path). */
type HandleHere = (
  route: WebhookRoute,
  text: string,
  receivedAt: number,
) => HandlerReply | Promise<HandlerReply>;

/** True when evaluating `review` needs its whole objects on this thread. */
function needsWholeReview(
  d: HandlerDeps,
  route: WebhookRoute,
  review: ParsedReview,
  policies: readonly { compiled: { readsExternalData: boolean } }[],
): boolean {
  if (d.options.externalData && policies.some((p) => p.compiled.readsExternalData)) return true;
  if (d.options.background === undefined || route.type !== "validate") return false;
  const subject = requestSubject(review);
  const { request } = review;
  return (
    backgroundPolicies(d.policyCache, {
      kind: subject.kind,
      namespace: subject.namespace,
      operation: request.operation === "DELETE" ? "CREATE" : request.operation,
      ...(route.failurePolicy ? { failurePolicy: route.failurePolicy } : {}),
    }).length > 0
  );
}

/** Answers a large body: parsed and evaluated in workers, filtered, selected and decided here. */
export async function handleLargeBody(
  d: HandlerDeps,
  route: WebhookRoute,
  text: string,
  receivedAt: number,
  evaluator: ParsingEvaluator,
  here: HandleHere,
): Promise<HandlerReply> {
  let parsed: ReviewParse;
  try {
    parsed = await evaluator.parseReview(text, receivedAt + d.deadlineMs - d.clock.monotonic());
  } catch {
    // No worker could parse it in time: parse here, as without workers.
    return here(route, text, receivedAt);
  }
  if (!parsed.ok) return unusable(d, route, parsed.uid, parsed.message);
  const review = parsed.review;
  const subject = requestSubject(review);
  let answer: AdmissionReviewResponse;
  try {
    const selection = select(d, route, review, subject);
    if ("answer" in selection) {
      answer = selection.answer;
    } else if (needsWholeReview(d, route, review, selection.policies)) {
      return here(route, text, receivedAt);
    } else {
      const job = jobFor(d, route, review, subject, receivedAt, selection);
      job.body = reviewBody(text, review);
      answer = await decideOffThread(d, route, review, subject, receivedAt, selection, job, evaluator).catch(
        (error: unknown) => failed(d, route, review, error),
      );
    }
  } catch (error) {
    answer = failed(d, route, review, error);
  }
  return { statusCode: 200, body: finish(d, route, review, subject, receivedAt, answer) };
}
