/**
 * `createWorkQueue`: client-go's rate-limited work queue with Kyverno's controller loop on top. A key is
 * queued at most once however often it is added, is never handled by two workers at once (added while
 * in flight, it is handled again afterwards), and failed keys are retried with the rate limiter's delay
 * up to `maxRetries` times, then dropped. Metrics hooks map to `kyverno_controller_reconcile_total`,
 * `_requeue_total` and `_drop_total`.
 */
import { type Clock, systemClock } from "@kyverno-ts/api";
import { defaultControllerRateLimiter, type RateLimiter } from "./rate-limiters.js";

/** Passed to the metrics hooks; `controller` is the `controller_name` label. */
export interface QueueEvent<K> {
  controller: string;
  key: K;
  /** Failures of `key` so far (for requeue and drop, including this one). */
  retries: number;
  /** The failure (requeue and drop only). */
  error?: unknown;
}

/** Options of `createWorkQueue`. */
export interface WorkQueueOptions<K> {
  /** The controller's name (`controller_name` label). */
  name: string;
  /** Retry delays; default `defaultControllerRateLimiter()` (exponential 5 ms → 1000 s, and 10 qps / 100 burst). */
  rateLimiter?: RateLimiter<K>;
  /** Retries of a failing key before it is dropped (default 10, as Kyverno's controllers; `Infinity`: never). */
  maxRetries?: number;
  clock?: Clock;
  /** Each time the handler is called. */
  onReconcile?: (event: QueueEvent<K>) => void;
  /** A failed key is queued again. */
  onRequeue?: (event: QueueEvent<K>) => void;
  /** A key failed `maxRetries` times and is given up. */
  onDrop?: (event: QueueEvent<K>) => void;
}

/** What a reconcile may ask for besides success: a retry with backoff, or a plain delayed requeue. */
export type ReconcileResult = { error: unknown } | { requeueAfterMs: number };

/** Given to the handler with each key. */
export interface ReconcileContext {
  /** Failures of this key since its last success. */
  retries: number;
  /** Aborted by `shutdown({ drain: false })`. */
  signal: AbortSignal;
}

/** Handles one key (async). Success: return nothing. Throwing is the same as returning `{ error }`. */
export type Reconciler<K> = (
  key: K,
  context: ReconcileContext,
) => Promise<ReconcileResult | undefined> | Promise<void>;

/** A de-duplicating, rate-limited queue of keys with workers; create with `createWorkQueue`. */
export interface WorkQueue<K> {
  /** Queues `key` unless it is already queued (ignored after shutdown). */
  add(key: K): void;
  /** Queues `key` after `delayMs`; of several pending delays for one key the earliest wins. */
  addAfter(key: K, delayMs: number): void;
  /** Queues `key` after the rate limiter's next delay for it. */
  addRateLimited(key: K): void;
  /** Clears `key`'s failure history. */
  forget(key: K): void;
  /** Failures of `key` since its last success. */
  retries(key: K): number;
  /** Keys waiting for a worker (not in flight, not delayed). */
  len(): number;
  /** Runs `workers` concurrent workers until shutdown; resolves when they have all exited. */
  process(workers: number, handler: Reconciler<K>): Promise<void>;
  /**
   * Stops accepting keys and cancels delayed ones; by default workers first finish every queued key
   * (`drain: false`: only the ones in flight, whose signal is aborted). Resolves when workers have exited.
   */
  shutdown(options?: { drain?: boolean }): Promise<void>;
  isShuttingDown(): boolean;
}

/** The FIFO of keys under the workers: each key queued at most once, never handed to two workers at once. */
function createKeyQueue<K>() {
  let items: K[] = [];
  let head = 0;
  const dirty = new Set<K>();
  const processing = new Set<K>();
  const wakers: Array<() => void> = [];

  const push = (key: K): void => {
    items.push(key);
    wakers.shift()?.();
  };

  return {
    /** Queues `key` unless queued; a key in flight is queued again when it is done. */
    add(key: K): void {
      if (dirty.has(key)) return;
      dirty.add(key);
      if (!processing.has(key)) push(key);
    },
    /** The next key for a worker (now in flight), or undefined when none waits. */
    take(): K | undefined {
      if (head >= items.length) return undefined;
      const key = items[head] as K;
      head++;
      if (head > 1024 && head * 2 > items.length) {
        items = items.slice(head);
        head = 0;
      }
      dirty.delete(key);
      processing.add(key);
      return key;
    },
    /** A worker finished `key`; queued again if it was added meanwhile. */
    done(key: K): void {
      processing.delete(key);
      if (dirty.has(key)) push(key);
    },
    /** Resolves when a key is pushed (or `wakeAll`). */
    wait: (): Promise<void> => new Promise<void>((resolve) => wakers.push(resolve)),
    wakeAll(): void {
      for (const wake of wakers.splice(0)) wake();
    },
    len: (): number => items.length - head,
    /** Drops every waiting key. */
    clear(): void {
      for (const key of items.slice(head)) dirty.delete(key);
      items = [];
      head = 0;
    },
  };
}

/** Adds after a delay; of several pending delays for one key the earliest wins. */
function createDelays<K>(clock: Clock, add: (key: K) => void) {
  const delayed = new Map<K, { at: number; cancel: () => void }>();
  return {
    after(key: K, delayMs: number): void {
      const at = clock.now() + delayMs;
      const pending = delayed.get(key);
      if (pending !== undefined) {
        if (pending.at <= at) return;
        pending.cancel();
      }
      const cancel = clock.after(delayMs, () => {
        delayed.delete(key);
        add(key);
      });
      delayed.set(key, { at, cancel });
    },
    cancelAll(): void {
      for (const pending of delayed.values()) pending.cancel();
      delayed.clear();
    },
  };
}

/** Failures per key and the retry policy: requeued after the limiter's delay up to `maxRetries` times, then dropped. */
function createRetries<K>(options: WorkQueueOptions<K>, limiter: RateLimiter<K>) {
  const maxRetries = options.maxRetries ?? 10;
  const failures = new Map<K, number>();
  const forget = (key: K): void => {
    failures.delete(key);
    limiter.forget(key);
  };
  return {
    forget,
    /** Failures of `key` since its last success. */
    count: (key: K): number => failures.get(key) ?? 0,
    /** A failure of `key`: requeued after a delay, or given up. */
    failed(key: K, error: unknown, requeue: (key: K, delayMs: number) => void): void {
      const retries = (failures.get(key) ?? 0) + 1;
      const event: QueueEvent<K> = { controller: options.name, key, retries, error };
      if (retries <= maxRetries) {
        failures.set(key, retries);
        requeue(key, limiter.when(key));
        options.onRequeue?.(event);
      } else {
        forget(key);
        options.onDrop?.(event);
      }
    },
  };
}

/** Creates a work queue; call `process` to start workers and `shutdown` to stop them. */
export function createWorkQueue<K>(options: WorkQueueOptions<K>): WorkQueue<K> {
  const clock = options.clock ?? systemClock;
  const limiter = options.rateLimiter ?? defaultControllerRateLimiter<K>(clock);
  const keys = createKeyQueue<K>();
  const retries = createRetries(options, limiter);
  const { forget } = retries;
  const workers: Promise<void>[] = [];
  const abort = new AbortController();
  let shuttingDown = false;
  let draining = true;

  const add = (key: K): void => {
    if (!shuttingDown) keys.add(key);
  };
  const delays = createDelays<K>(clock, add);
  const addAfter = (key: K, delayMs: number): void => {
    if (shuttingDown) return;
    if (delayMs <= 0) add(key);
    else delays.after(key, delayMs);
  };

  const next = async (): Promise<K | undefined> => {
    for (;;) {
      if (shuttingDown && !draining) return undefined;
      const key = keys.take();
      if (key !== undefined || shuttingDown) return key;
      await keys.wait();
    }
  };

  const settle = (key: K, result: ReconcileResult | undefined): void => {
    if (result === undefined) {
      forget(key);
      return;
    }
    if ("requeueAfterMs" in result) {
      forget(key);
      addAfter(key, result.requeueAfterMs);
      return;
    }
    if (!shuttingDown) retries.failed(key, result.error, addAfter);
  };

  const worker = async (handler: Reconciler<K>): Promise<void> => {
    for (;;) {
      const key = await next();
      if (key === undefined) return;
      const failed = retries.count(key);
      options.onReconcile?.({ controller: options.name, key, retries: failed });
      let result: ReconcileResult | undefined;
      try {
        result = (await handler(key, { retries: failed, signal: abort.signal })) ?? undefined;
      } catch (error) {
        result = { error };
      }
      settle(key, result);
      keys.done(key);
    }
  };

  return {
    add,
    addAfter,
    addRateLimited: (key) => addAfter(key, limiter.when(key)),
    forget,
    retries: retries.count,
    len: keys.len,
    process(count, handler) {
      const started = Array.from({ length: Math.max(1, Math.floor(count)) }, () => worker(handler));
      workers.push(...started);
      return Promise.all(started).then(() => undefined);
    },
    async shutdown(shutdownOptions) {
      if (!shuttingDown) {
        shuttingDown = true;
        draining = shutdownOptions?.drain !== false;
        delays.cancelAll();
        if (!draining) {
          keys.clear();
          abort.abort();
        }
        keys.wakeAll();
      }
      await Promise.all(workers);
    },
    isShuttingDown: () => shuttingDown,
  };
}
