/**
 * Admission reviews that arrive together are evaluated together. Under load the API server keeps many
 * requests in flight, and one turn of the event loop reads several of them (TLS, HTTP parsing,
 * routing). Evaluating each one in the middle of that I/O work alternates two large working sets, the
 * HTTP/TLS stack and the policy engine, and each evicts the other from the CPU caches: in the server,
 * evaluation took about twice its in-process time. Queued and evaluated back to back once the turn's
 * I/O is done, in `npm run bench:admission` the same reviews took the server from about 60 % to
 * about 75 % of the no-op webhook's requests per CPU second.
 *
 * The answers are written the same way: held while the batch is evaluated and written together when
 * it is done, or before the next review once the first held answer has waited `holdMs` (1 ms). Writing
 * each answer between two evaluations alternated the engine with the TLS and socket writes again; in
 * `npm run bench:admission` with both builds in one run (alternating rounds) holding them cut the
 * server's CPU per request by 5-6 % (74-79 % of the no-op's requests per CPU second instead of
 * 69-75 %). An answer is held at most `holdMs` plus the time of the one review being evaluated when
 * that passes (an inline attempt stops at its 5 ms budget; a review that needs more goes to the
 * evaluation pool), far below any webhook timeout; a review that arrives alone is answered as soon as
 * it is decided, after one `setImmediate` hop (microseconds). Queueing time counts against a review's
 * deadline like any other.
 */
import type { ServerClock } from "../clock.js";
import type { WebhookRoute } from "../controllers/admission/handler.js";
import type { HandlerReply } from "../controllers/admission/review.js";

/** An answer: immediate, or a promise when the review needed external data (or the handler threw). */
export type BatchAnswer = HandlerReply | Promise<HandlerReply>;

/** Queues reviews for evaluation; see `createReviewBatch`. `R` is the webhook's route (classic or CEL). */
export interface ReviewBatch<R = WebhookRoute> {
  /**
   * Queues one review body. `done` is called with its answer once it is evaluated (after the current
   * turn's I/O and after the reviews queued before it), with the other answers of its batch (see the
   * module comment); never synchronously from `submit`.
   */
  submit(route: R, body: string, receivedAt: number, done: (answer: BatchAnswer) => void): void;
}

/** Options of `createReviewBatch`. */
export interface ReviewBatchOptions<R = WebhookRoute> {
  /** The webhook's handler (`AdmissionHandler`, or the CEL handler's `serveBody`). */
  handler: { handleBody(route: R, body: string, options: { receivedAt: number }): BatchAnswer };
  /** Most reviews evaluated before the event loop turns again to read more (default 64). */
  maxBatch?: number;
  /** Runs the evaluation after the current turn's I/O (default `setImmediate`). */
  schedule?: (run: () => void) => void;
  /** Reads the time for `holdMs`. */
  clock: Pick<ServerClock, "monotonic">;
  /** Longest time (ms) an answer waits for the rest of its batch before the next review starts (default 1). */
  holdMs?: number;
}

/** How long (ms) a decided answer waits for the rest of its batch by default. */
const DEFAULT_HOLD_MS = 1;

interface Queued<R> {
  route: R;
  body: string;
  receivedAt: number;
  done: (answer: BatchAnswer) => void;
}

/** Creates an empty batch. Reviews are evaluated in the order they were submitted. */
export function createReviewBatch<R = WebhookRoute>(options: ReviewBatchOptions<R>): ReviewBatch<R> {
  const { handler, clock } = options;
  const holdMs = options.holdMs ?? DEFAULT_HOLD_MS;
  const maxBatch = Math.max(1, options.maxBatch ?? 64);
  const schedule = options.schedule ?? ((run: () => void) => setImmediate(run));
  let queue: Queued<R>[] = [];

  const drain = (): void => {
    const batch = queue.length <= maxBatch ? queue : queue.slice(0, maxBatch);
    queue = batch === queue ? [] : queue.slice(maxBatch);
    // The reviews left over are evaluated on the next turn, after the loop has read what came in.
    if (queue.length > 0) schedule(drain);
    // The answers of batch[0..answers.length); those from `written` on are held.
    const answers: BatchAnswer[] = [];
    let written = 0;
    let heldSince = 0;
    const release = (): void => {
      for (; written < answers.length; written++) batch[written]?.done(answers[written] as BatchAnswer);
    };
    for (const item of batch) {
      if (written < answers.length && clock.monotonic() - heldSince >= holdMs) release();
      let answer: BatchAnswer;
      try {
        answer = handler.handleBody(item.route, item.body, { receivedAt: item.receivedAt });
      } catch (error) {
        // The handler never throws by contract; if it does, only this review fails.
        answer = Promise.reject(error);
      }
      if (written === answers.length) heldSince = clock.monotonic();
      answers.push(answer);
    }
    release();
  };

  return {
    submit(route, body, receivedAt, done) {
      queue.push({ route, body, receivedAt, done });
      if (queue.length === 1) schedule(drain);
    },
  };
}
