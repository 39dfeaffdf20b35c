/**
 * A bounded, ordered delivery queue in front of one target, so a slow or failing target never delays
 * the others or the caller.
 */
import { type Clock, createSystemClock } from "@kyverno-ts/api";
import { createLogAggregator } from "../../log-aggregator.js";
import type { Logger } from "../../logger.js";
import type { DeliveryFailure, NotifiableResult, SendContext, Target } from "../types.js";
import { isDeliveryError } from "./errors.js";

/** Options of `createDeliveryQueue`. */
export interface DeliveryQueueOptions {
  /** Pending sends kept at most; further sends are dropped and reported as `QUEUE_FULL` (default 1000). */
  capacity?: number;
}

/** Dependencies of `createDeliveryQueue`. */
export interface DeliveryQueueDeps {
  logger: Logger;
  /** Times the windows of the aggregated "dropped" lines (default the system clock). */
  clock?: Clock;
  onError?: (failure: DeliveryFailure) => void;
}

/**
 * A target whose `send` / `sendBatch` enqueue and resolve at once; deliveries run one at a time in
 * order. Failures are logged (and counted by the target's own `onError`), never thrown to the caller.
 */
export interface QueuedTarget extends Target {
  /** Sends waiting or in flight. */
  readonly pending: number;
  /** Resolves when the queue is empty and nothing is in flight. */
  idle(): Promise<void>;
  /** Refuses new sends, then waits for the queued ones. */
  close(): Promise<void>;
}

interface Job {
  /** `one` came from `send`, `batch` from `sendBatch`; the target renders them differently. */
  kind: "one" | "batch";
  results: readonly NotifiableResult[];
  context: SendContext | undefined;
}

/**
 * Wraps `target` in its own bounded queue. Use one per target in the notifier; call `close()` on
 * shutdown to flush.
 */
export function createDeliveryQueue(
  target: Target,
  options: DeliveryQueueOptions,
  deps: DeliveryQueueDeps,
): QueuedTarget {
  const capacity = options.capacity ?? 1000;
  const jobs: Job[] = [];
  let running = false;
  let closed = false;
  let inFlight = 0;
  let waiters: (() => void)[] = [];
  // An unreachable target drops every notification: the first drop is logged, then one line per 30 s.
  const log = createLogAggregator({
    logger: deps.logger,
    clock: deps.clock ?? createSystemClock({ unref: true }),
  });
  const dropped = (level: "warn" | "error", code: string, results: number, message: string) =>
    log.log({
      key: code,
      level,
      fields: { target: target.name, code, results },
      message: `notification dropped: ${message}`,
      summary: (n, s) =>
        `dropped ${n} notifications to ${target.name} in the last ${s} s (${code}: ${message})`,
      count: results,
    });

  const settle = (): void => {
    if (jobs.length > 0 || running) return;
    const ws = waiters;
    waiters = [];
    for (const w of ws) w();
  };

  const run = async (): Promise<void> => {
    running = true;
    for (let job = jobs.shift(); job !== undefined; job = jobs.shift()) {
      inFlight = 1;
      try {
        const first = job.results[0];
        if (job.kind === "one" && first !== undefined) await target.send(first, job.context);
        else await target.sendBatch(job.results, job.context);
      } catch (error) {
        // Retries and per-attempt metrics happened inside the target; here only the final outcome is logged.
        dropped(
          "error",
          isDeliveryError(error) ? error.code : "ERROR",
          job.results.length,
          error instanceof Error ? error.message : String(error),
        );
      } finally {
        inFlight = 0;
      }
    }
    running = false;
    settle();
  };

  const enqueue = (
    kind: Job["kind"],
    results: readonly NotifiableResult[],
    context: SendContext | undefined,
  ): void => {
    if (results.length === 0) return;
    if (closed || jobs.length >= capacity) {
      const message = closed ? "queue closed" : `queue full (${capacity} pending)`;
      deps.onError?.({ target: target.name, code: "QUEUE_FULL", attempt: 0, willRetry: false, message });
      dropped("warn", "QUEUE_FULL", results.length, message);
      return;
    }
    jobs.push({ kind, results, context });
    if (!running) void run();
  };

  const idle = (): Promise<void> =>
    jobs.length === 0 && !running ? Promise.resolve() : new Promise<void>((resolve) => waiters.push(resolve));

  return {
    name: target.name,
    get pending() {
      return jobs.length + inFlight;
    },
    send: async (result, context) => enqueue("one", [result], context),
    sendBatch: async (results, context) => enqueue("batch", results, context),
    idle,
    close: async () => {
      closed = true;
      await idle();
      log.flush();
    },
  };
}
