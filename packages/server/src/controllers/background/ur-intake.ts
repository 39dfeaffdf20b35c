/**
 * The admission side of UpdateRequests: admitted requests hand over a thunk computing their intents
 * (the engine's generate / mutate-existing match, evaluated later, off the request path); the intake
 * evaluates thunks in batches on the event loop's next turns and creates the UpdateRequests with a
 * few concurrent API calls.
 *
 * Bounded twice. In memory: at most `capacity` intents wait (default 10,000); identical pending ones
 * (same request type, policy, trigger and delete flag) are one; past the capacity new ones are dropped
 * and counted (`stats().dropped`, the `onDrop` metric, a warning), never queued without limit. In the
 * cluster (measured by `npm run bench:background`'s flood): the UpdateRequest's name
 * is a digest of that identity, so a flood of requests on one trigger is one UpdateRequest; an
 * existing one that already ran is set back to Pending instead of being duplicated.
 */
import type { KubeObject } from "@kyverno-ts/api";
import type { KubeClient } from "@kyverno-ts/kube";
import type { Logger } from "../../logger.js";
import {
  intentKey,
  type UpdateRequest,
  type UpdateRequestIntent,
  updateRequestFor,
} from "./update-request.js";

/** Options of `createUpdateRequestIntake`. */
export interface UpdateRequestIntakeOptions {
  client: KubeClient;
  /** Kyverno's namespace: UpdateRequests live there. */
  namespace: string;
  logger: Logger;
  /** Most intents waiting to be created (default 10,000). */
  capacity?: number;
  /** Concurrent create calls (default 8). */
  concurrency?: number;
  /** Called with the number of intents dropped because the intake was full. */
  onDrop?: (count: number) => void;
}

/** Counters of the intake since it started. */
export interface IntakeStats {
  /** Intents waiting now. */
  pending: number;
  created: number;
  /** Intents merged into an identical pending one or an existing UpdateRequest. */
  deduplicated: number;
  dropped: number;
  failed: number;
}

/** The intake; see `createUpdateRequestIntake`. */
export interface UpdateRequestIntake {
  /** Queues a thunk computing a request's intents; returns immediately. */
  offer(intents: () => readonly UpdateRequestIntent[]): void;
  /** Queues intents already computed (policy events of the background controller). */
  add(intent: UpdateRequestIntent): boolean;
  stats(): IntakeStats;
  /** Resolves once everything queued so far has been created (tests, shutdown). */
  flush(): Promise<void>;
  /** Stops taking work; resolves once in-flight creates have ended. */
  stop(): Promise<void>;
}

/**
 * Creates one UpdateRequest and records its state `Pending` (the status subresource ignores a status
 * sent with the create; upstream writes it the same way), so `kubectl get updaterequests` shows the
 * backlog; an existing one that is not pending is set back to Pending.
 */
async function createUpdateRequest(
  options: UpdateRequestIntakeOptions,
  stats: IntakeStats,
  intent: UpdateRequestIntent,
): Promise<void> {
  const { client, namespace, logger } = options;
  const ur = updateRequestFor(intent, namespace);
  const created = await client.create(ur);
  if (created.ok) {
    stats.created++;
    // With the created resourceVersion: an UpdateRequest the controller already processed (deleted,
    // or Failed) answers 404 / 409 and keeps its newer state.
    await client.update({ ...created.value, status: { state: "Pending" } } as unknown as KubeObject, {
      subresource: "status",
    });
    return;
  }
  if (created.reason !== "AlreadyExists") {
    stats.failed++;
    logger.error(
      { policy: intent.policy, trigger: intent.trigger, reason: created.reason, message: created.message },
      "cannot create an UpdateRequest",
    );
    return;
  }
  stats.deduplicated++;
  await pendingAgain(client, { apiVersion: ur.apiVersion, kind: ur.kind, namespace, name: ur.metadata.name });
}

/** Sets an existing UpdateRequest that ran (or is running) for an older version of the trigger Pending again. */
async function pendingAgain(
  client: KubeClient,
  ref: { apiVersion: string; kind: string; namespace: string; name: string },
): Promise<void> {
  const existing = await client.get<KubeObject>(ref);
  if (!existing.ok) return;
  const state = (existing.value as unknown as UpdateRequest).status?.state;
  if (state === undefined || state === "Pending") return;
  await client.update({ ...existing.value, status: { state: "Pending", retryCount: 0 } } as KubeObject, {
    subresource: "status",
  });
}

/** Computes the intents of a batch of admitted requests; a failing thunk is logged, the others go on. */
function evaluateBatch(
  batch: ReadonlyArray<() => readonly UpdateRequestIntent[]>,
  add: (intent: UpdateRequestIntent) => boolean,
  logger: Logger,
): void {
  for (const thunk of batch) {
    try {
      for (const intent of thunk()) add(intent);
    } catch (error) {
      logger.error({ err: error }, "cannot compute the background work of an admitted request");
    }
  }
}

/** Counts, reports and logs (the first, then every 1,000th) work dropped because the intake is full. */
function countDrop(options: UpdateRequestIntakeOptions, stats: IntakeStats, capacity: number): void {
  stats.dropped++;
  options.onDrop?.(1);
  if (stats.dropped === 1 || stats.dropped % 1000 === 0)
    options.logger.warn(
      { dropped: stats.dropped, capacity },
      "UpdateRequest intake full: background work for admitted requests was dropped",
    );
}

/** Creates an intake; it starts idle and does its work as offers arrive. */
export function createUpdateRequestIntake(options: UpdateRequestIntakeOptions): UpdateRequestIntake {
  const { logger } = options;
  const capacity = options.capacity ?? 10_000;
  const concurrency = options.concurrency ?? 8;
  const thunks: Array<() => readonly UpdateRequestIntent[]> = [];
  const pending = new Map<string, UpdateRequestIntent>();
  const stats: IntakeStats = { pending: 0, created: 0, deduplicated: 0, dropped: 0, failed: 0 };
  let running = 0;
  let scheduled = false;
  let stopped = false;
  let idle: Array<() => void> = [];

  const settleIdle = (): void => {
    if (running === 0 && pending.size === 0 && thunks.length === 0 && !scheduled) {
      const waiting = idle;
      idle = [];
      for (const resolve of waiting) resolve();
    }
  };

  const drop = (): void => countDrop(options, stats, capacity);
  const whenIdle = (): Promise<void> =>
    new Promise<void>((resolve) => {
      idle.push(resolve);
      settleIdle();
    });

  const add = (intent: UpdateRequestIntent): boolean => {
    if (stopped) return false;
    const key = intentKey(intent);
    if (pending.has(key)) {
      stats.deduplicated++;
      return true;
    }
    if (pending.size >= capacity) {
      drop();
      return false;
    }
    pending.set(key, intent);
    pump();
    return true;
  };

  const pump = (): void => {
    while (running < concurrency && pending.size > 0) {
      const [key, intent] = pending.entries().next().value as [string, UpdateRequestIntent];
      pending.delete(key);
      running++;
      createUpdateRequest(options, stats, intent)
        .catch((error: unknown) => {
          stats.failed++;
          logger.error({ err: error }, "cannot create an UpdateRequest");
        })
        .finally(() => {
          running--;
          pump();
          settleIdle();
        });
    }
  };

  const evaluate = (): void => {
    scheduled = false;
    // A bounded batch per turn, so admission requests keep being answered during a flood.
    evaluateBatch(thunks.splice(0, 200), add, logger);
    if (thunks.length > 0) schedule();
    settleIdle();
  };

  const schedule = (): void => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(evaluate);
  };

  return {
    offer(thunk) {
      if (stopped) return;
      if (thunks.length + pending.size >= capacity) {
        drop();
        return;
      }
      thunks.push(thunk);
      schedule();
    },
    add,
    stats: () => ({ ...stats, pending: pending.size + thunks.length }),
    flush: whenIdle,
    async stop() {
      stopped = true;
      await whenIdle();
    },
  };
}
