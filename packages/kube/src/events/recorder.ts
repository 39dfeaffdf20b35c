/**
 * `createEventRecorder`: client-go's event recorder for controllers that must never wait on it. `record`
 * is synchronous and O(1): it drops omitted reasons, folds an occurrence identical to a recent one into
 * that Event's series (`series.count`, `series.lastObservedTime`; client-go's isomorphic-event cache and
 * EventCorrelator dedup), passes new Events through a per-source-and-object spam filter (client-go's
 * token bucket: 25, then one per 5 minutes) and a bounded queue (Kyverno's `--maxQueuedEvents`,
 * dropping and counting past it). Workers write the queue under a token bucket (Kyverno's
 * `--eventsRateLimitQPS` / `--eventsRateLimitBurst`), retrying failures the API server may recover from.
 */
import { type Clock, type KubeObject, sleep, systemClock } from "@kyverno-ts/api";
import type { KubeClient } from "../client/client.js";
import { createTokenBucket } from "../ratelimit/token-bucket.js";
import {
  EVENT_API_VERSION,
  type EventRecord,
  type EventSeries,
  eventName,
  eventObject,
  seriesKey,
  seriesPatch,
  sourceObjectKey,
} from "./event.js";

/** The log lines the recorder writes; the server's `Logger` (and pino) fit. */
export interface EventRecorderLogger {
  debug(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

/** Why an occurrence did not become an API write. */
export type EventDropReason = "queueFull" | "spam" | "failed";

/** Options of `createEventRecorder`. */
export interface EventRecorderOptions {
  /** Writes the Events (create, and merge patches of a series). */
  client: Pick<KubeClient, "create" | "patch">;
  /** This replica (the Pod name): `reportingInstance` is `<reportingController>-<identity>`, as client-go's. */
  identity: string;
  clock?: Clock;
  logger?: EventRecorderLogger;
  /** Reasons never written (Kyverno's `--omitEvents`). */
  omitReasons?: Iterable<string>;
  /** Most Event writes waiting (Kyverno's `--maxQueuedEvents`, default 1000); new Events past it are dropped. */
  maxQueued?: number;
  /** Event writes per second (Kyverno's `--eventsRateLimitQPS`, default 1000; 0: unlimited). */
  qps?: number;
  /** Writes at once above `qps` (Kyverno's `--eventsRateLimitBurst`, default 2000). */
  burst?: number;
  /** Concurrent writes (default 3, Kyverno's event workers). */
  workers?: number;
  /** New Events one source may create about one object at once (default 25, client-go's). */
  spamBurst?: number;
  /** Then one more per this many ms (default 300,000: client-go's 1/300 per second). */
  spamRefillMs?: number;
  /** A series ends this long after its last occurrence; the next one creates a new Event (default 6 min). */
  seriesWindowMs?: number;
  /**
   * Counts of running series are written this often (default 30 s; client-go waits 30 min), the first
   * repetition at once, the last when the series ends.
   */
  refreshMs?: number;
  /** Tries per write for failures the server may recover from (default 12, client-go's). */
  maxTries?: number;
  /** Wait between tries (default 10 s, client-go's, ±25 %). */
  retryDelayMs?: number;
  /**
   * Series and spam-filter buckets remembered (default 4096 each, client-go's cache size); past it the
   * oldest eighth is forgotten.
   */
  maxSeries?: number;
  /** Told about each occurrence that was dropped (for a metric). */
  onDrop?: (reason: EventDropReason) => void;
}

/** Counters since creation. */
export interface EventRecorderStats {
  /** Calls of `record`. */
  recorded: number;
  /** Not written: the reason is omitted. */
  omitted: number;
  /** Folded into a running series. */
  aggregated: number;
  /** Dropped by the spam filter. */
  spamFiltered: number;
  /** Dropped because the queue was full. */
  queueFull: number;
  /** Events created, and series patches written. */
  created: number;
  patched: number;
  /** Writes given up (not retryable, or out of tries). */
  failed: number;
  /** Writes waiting, in flight, or waiting to retry. */
  pending: number;
}

/** A recorder; create with `createEventRecorder`, then `start()`. */
export interface EventRecorder {
  /** Records one occurrence; never blocks, never throws. */
  record(event: EventRecord): void;
  /** Starts the periodic series refresh. Writes start with the first record. */
  start(): void;
  /** Queues the counts of running series and resolves once nothing is waiting or in flight. */
  flush(): Promise<void>;
  /** Writes what it can within `timeoutMs` (default 5 s), then abandons the rest and stops. */
  stop(options?: { timeoutMs?: number }): Promise<void>;
  stats(): EventRecorderStats;
}

interface Entry extends EventSeries {
  key: string;
  created: boolean;
  /** The count the API server has. */
  written: number;
  queued: boolean;
  /** A write is in flight; `again`: it was asked for once more meanwhile. */
  writing: boolean;
  again: boolean;
  tries: number;
}

interface SpamBucket {
  tokens: number;
  lastMs: number;
}

const retryable = (status: number): boolean => status === 0 || status === 429 || status >= 500;

/** Creates a recorder; no I/O until `record` (writes) or `start` (the refresh timer). */
export function createEventRecorder(options: EventRecorderOptions): EventRecorder {
  const clock = options.clock ?? systemClock;
  const { client, logger, onDrop } = options;
  const omit = new Set(options.omitReasons ?? []);
  const maxQueued = Math.max(1, options.maxQueued ?? 1000);
  const workers = Math.max(1, options.workers ?? 3);
  const spamBurst = Math.max(1, options.spamBurst ?? 25);
  const spamRefillMs = options.spamRefillMs ?? 300_000;
  const windowMs = options.seriesWindowMs ?? 6 * 60_000;
  const refreshMs = options.refreshMs ?? 30_000;
  const maxTries = Math.max(1, options.maxTries ?? 12);
  const retryDelayMs = options.retryDelayMs ?? 10_000;
  const maxSeries = Math.max(1, options.maxSeries ?? 4096);
  const bucket = createTokenBucket({ qps: options.qps ?? 1000, burst: options.burst ?? 2000, clock });
  const series = new Map<string, Entry>();
  const spam = new Map<string, SpamBucket>();
  const queue: Entry[] = [];
  let head = 0;
  let active = 0;
  let retrying = 0;
  let sequence = 0;
  let stopped = false;
  let cancelTick: (() => void) | undefined;
  const cancelRetries = new Set<() => void>();
  const abort = new AbortController();
  const idle: Array<() => void> = [];
  const stats = {
    recorded: 0,
    omitted: 0,
    aggregated: 0,
    spamFiltered: 0,
    queueFull: 0,
    created: 0,
    patched: 0,
    failed: 0,
  };

  const waiting = (): number => queue.length - head;
  const busy = (): boolean => waiting() > 0 || active > 0 || retrying > 0;

  const settle = (): void => {
    if (busy()) return;
    for (const resolve of idle.splice(0)) resolve();
  };

  const enqueue = (entry: Entry): void => {
    if (entry.queued || stopped) return;
    if (entry.writing) {
      entry.again = true;
      return;
    }
    entry.queued = true;
    queue.push(entry);
    schedulePump();
  };

  /** Writes start after the caller's turn of the event loop: `record` itself only enqueues. */
  let pumpScheduled = false;
  const schedulePump = (): void => {
    if (pumpScheduled) return;
    pumpScheduled = true;
    setImmediate(() => {
      pumpScheduled = false;
      pump();
    });
  };

  const take = (): Entry => {
    const entry = queue[head] as Entry;
    head++;
    if (head > 1024 && head * 2 > queue.length) {
      queue.splice(0, head);
      head = 0;
    }
    return entry;
  };

  const pump = (): void => {
    while (!stopped && active < workers && waiting() > 0) {
      const entry = take();
      active++;
      entry.queued = false;
      entry.writing = true;
      void write(entry).finally(() => {
        active--;
        entry.writing = false;
        if (entry.again) {
          entry.again = false;
          if (!entry.created || entry.count > entry.written) enqueue(entry);
        }
        pump();
        settle();
      });
    }
  };

  const retry = (entry: Entry): void => {
    retrying++;
    const delay = retryDelayMs * (0.75 + Math.random() * 0.5);
    const cancel = clock.after(delay, () => {
      cancelRetries.delete(cancel);
      retrying--;
      enqueue(entry);
      settle();
    });
    cancelRetries.add(cancel);
  };

  const giveUp = (entry: Entry, status: number, reason: string, message: string): void => {
    stats.failed++;
    entry.tries = 0;
    logger?.warn(
      { reason: entry.record.reason, regarding: entry.record.regarding, status, failure: reason, message },
      "cannot write event",
    );
    onDrop?.("failed");
  };

  async function write(entry: Entry): Promise<void> {
    const wait = bucket.reserve();
    if (wait > 0 && !(await sleep(clock, wait, abort.signal))) return;
    const count = entry.count;
    const creating = !entry.created;
    const result = creating
      ? await client.create<KubeObject>(eventObject(entry, instanceOf(entry)), { signal: abort.signal })
      : await client.patch<KubeObject>(
          { apiVersion: EVENT_API_VERSION, kind: "Event", name: entry.name, namespace: entry.namespace },
          { type: "merge", patch: seriesPatch(entry) },
          { signal: abort.signal },
        );
    if (result.ok) {
      if (creating) stats.created++;
      else stats.patched++;
      entry.created = true;
      entry.written = count;
      entry.tries = 0;
      // The first repetition is written at once (client-go); later ones at the next refresh.
      if (creating && entry.count > count && count === 1) enqueue(entry);
      return;
    }
    if (stopped || result.reason === "Aborted") return;
    if (!creating && result.status === 404) {
      // Deleted (or expired by the API server's TTL): write the series anew.
      entry.created = false;
      enqueue(entry);
      return;
    }
    if (creating && result.status === 409) {
      entry.created = true;
      entry.written = count;
      return;
    }
    if (retryable(result.status) && ++entry.tries < maxTries) retry(entry);
    else giveUp(entry, result.status, result.reason, result.message);
  }

  const instanceOf = (entry: Entry): string => `${entry.record.reportingController}-${options.identity}`;

  /** Takes a spam-filter token for a new Event; false when the source has created too many about the object. */
  const admit = (record: EventRecord, now: number): boolean => {
    const key = sourceObjectKey(record);
    let b = spam.get(key);
    if (b === undefined) {
      // client-go keeps 4096 buckets (an LRU); forgetting one gives that pair a full bucket again.
      if (spam.size >= maxSeries) {
        let n = Math.max(1, Math.floor(maxSeries / 8));
        for (const k of spam.keys()) {
          if (n-- === 0) break;
          spam.delete(k);
        }
      }
      b = { tokens: spamBurst, lastMs: now };
      spam.set(key, b);
    } else {
      b.tokens = Math.min(spamBurst, b.tokens + (now - b.lastMs) / spamRefillMs);
      b.lastMs = now;
    }
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  };

  const drop = (reason: EventDropReason, record: EventRecord): void => {
    const fields = { reason: record.reason, regarding: record.regarding, dropped: reason };
    if (reason === "queueFull" && stats.queueFull % 1000 === 1)
      logger?.warn({ ...fields, queueFull: stats.queueFull, maxQueued }, "event queue full, dropping events");
    else logger?.debug(fields, "event dropped");
    onDrop?.(reason);
  };

  /**
   * Forgets the oldest eighth of the series (their pending counts are queued first): in bulk, since
   * reading a Map's first key after many deletions at its front walks the holes they leave.
   */
  const forgetOldest = (): void => {
    let n = Math.max(1, Math.floor(maxSeries / 8));
    for (const [key, entry] of series) {
      if (n-- === 0) break;
      if (entry.created && entry.count > entry.written) enqueue(entry);
      series.delete(key);
    }
  };

  /** Writes the counts of running series and forgets ended series and refilled spam buckets. */
  const refresh = (): void => {
    const now = clock.now();
    for (const [key, entry] of series) {
      if (entry.created && entry.count > entry.written) enqueue(entry);
      if (now - entry.lastMs > windowMs) series.delete(key);
    }
    for (const [key, b] of spam)
      if (now - b.lastMs >= (spamBurst - b.tokens) * spamRefillMs) spam.delete(key);
  };

  const tick = (): void => {
    refresh();
    if (!stopped) cancelTick = clock.after(refreshMs, tick);
  };

  const flush = (): Promise<void> => {
    refresh();
    if (!busy()) return Promise.resolve();
    return new Promise<void>((resolve) => idle.push(resolve));
  };

  return {
    record(event) {
      stats.recorded++;
      if (stopped) return;
      if (omit.has(event.reason)) {
        stats.omitted++;
        return;
      }
      const now = clock.now();
      const key = seriesKey(event);
      const running = series.get(key);
      if (running !== undefined && now - running.lastMs <= windowMs) {
        running.count++;
        running.lastMs = now;
        stats.aggregated++;
        if (running.created && running.written === 1) enqueue(running);
        return;
      }
      if (running !== undefined) {
        if (running.created && running.count > running.written) enqueue(running);
        series.delete(key);
      }
      if (!admit(event, now)) {
        stats.spamFiltered++;
        drop("spam", event);
        return;
      }
      if (waiting() >= maxQueued) {
        stats.queueFull++;
        drop("queueFull", event);
        return;
      }
      if (series.size >= maxSeries) forgetOldest();
      const entry: Entry = {
        key,
        record: event,
        name: eventName(event.regarding.name, now, sequence++),
        namespace: event.regarding.namespace || "default",
        firstMs: now,
        lastMs: now,
        count: 1,
        created: false,
        written: 0,
        queued: false,
        writing: false,
        again: false,
        tries: 0,
      };
      series.set(key, entry);
      enqueue(entry);
    },
    start() {
      if (cancelTick === undefined && !stopped) cancelTick = clock.after(refreshMs, tick);
    },
    flush,
    async stop(opts = {}) {
      if (stopped) return;
      const drained = flush();
      let cancelTimeout: () => void = () => undefined;
      await Promise.race([
        drained,
        new Promise<void>((resolve) => {
          cancelTimeout = clock.after(opts.timeoutMs ?? 5000, resolve);
        }),
      ]);
      cancelTimeout();
      stopped = true;
      cancelTick?.();
      for (const cancel of cancelRetries) cancel();
      cancelRetries.clear();
      retrying = 0;
      abort.abort();
      queue.length = 0;
      head = 0;
      for (const resolve of idle.splice(0)) resolve();
    },
    stats: () => ({ ...stats, pending: waiting() + active + retrying }),
  };
}
