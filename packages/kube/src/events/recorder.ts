/**
 * `createEventRecorder`: client-go's event recorder for controllers that must never wait on it. `record`
 * is synchronous and O(1): it drops omitted reasons, folds an occurrence identical to a recent one into
 * that Event's series (`series.count`, `series.lastObservedTime`; client-go's isomorphic-event cache and
 * EventCorrelator dedup), combines similar occurrences (same object, reason and action) past ten
 * distinct notes in ten minutes into one `(combined from similar events)` series (client-go's
 * EventAggregator), passes new Events through a per-source-and-object spam filter (client-go's
 * token bucket: 25, then one per 5 minutes) and a bounded queue (Kyverno's `--maxQueuedEvents`,
 * dropping and counting past it). Workers write the queue under a token bucket (Kyverno's
 * `--eventsRateLimitQPS` / `--eventsRateLimitBurst`), retrying failures the API server may recover from.
 */
import { systemClock } from "@kyverno-ts/api";
import { createTokenBucket } from "../ratelimit/token-bucket.js";
import { busy, type RecorderState, waiting } from "./recorder-queue.js";
import { recordOccurrence, refresh, tick } from "./recorder-series.js";
import type { EventRecorder, EventRecorderOptions } from "./recorder-types.js";

export type {
  EventDropReason,
  EventRecorder,
  EventRecorderLogger,
  EventRecorderOptions,
  EventRecorderStats,
} from "./recorder-types.js";

/** The recorder's state: the options with their defaults, nothing queued or running. */
function initialState(options: EventRecorderOptions): RecorderState {
  const clock = options.clock ?? systemClock;
  return {
    options,
    clock,
    omit: new Set(options.omitReasons ?? []),
    maxQueued: Math.max(1, options.maxQueued ?? 1000),
    workers: Math.max(1, options.workers ?? 3),
    spamBurst: Math.max(1, options.spamBurst ?? 25),
    spamRefillMs: options.spamRefillMs ?? 300_000,
    windowMs: options.seriesWindowMs ?? 6 * 60_000,
    refreshMs: options.refreshMs ?? 30_000,
    maxTries: Math.max(1, options.maxTries ?? 12),
    retryDelayMs: options.retryDelayMs ?? 10_000,
    maxSeries: Math.max(1, options.maxSeries ?? 4096),
    maxSimilar: Math.max(0, options.similarEvents ?? 10),
    similarWindowMs: options.similarWindowMs ?? 600_000,
    bucket: createTokenBucket({ qps: options.qps ?? 1000, burst: options.burst ?? 2000, clock }),
    series: new Map(),
    spam: new Map(),
    similar: new Map(),
    queue: [],
    head: 0,
    active: 0,
    retrying: 0,
    sequence: 0,
    stopped: false,
    cancelTick: undefined,
    pumpScheduled: false,
    cancelRetries: new Set(),
    abort: new AbortController(),
    idle: [],
    stats: {
      recorded: 0,
      omitted: 0,
      aggregated: 0,
      combined: 0,
      spamFiltered: 0,
      queueFull: 0,
      created: 0,
      patched: 0,
      failed: 0,
    },
  };
}

/** Queues the counts of running series and resolves once nothing is waiting or in flight. */
function flush(s: RecorderState): Promise<void> {
  refresh(s);
  if (!busy(s)) return Promise.resolve();
  return new Promise<void>((resolve) => s.idle.push(resolve));
}

/** Writes what it can within `timeoutMs`, then abandons the rest and stops. */
async function stop(s: RecorderState, timeoutMs: number): Promise<void> {
  if (s.stopped) return;
  const drained = flush(s);
  let cancelTimeout: () => void = () => undefined;
  await Promise.race([
    drained,
    new Promise<void>((resolve) => {
      cancelTimeout = s.clock.after(timeoutMs, resolve);
    }),
  ]);
  cancelTimeout();
  s.stopped = true;
  s.cancelTick?.();
  for (const cancel of s.cancelRetries) cancel();
  s.cancelRetries.clear();
  s.retrying = 0;
  s.abort.abort();
  s.queue.length = 0;
  s.head = 0;
  for (const resolve of s.idle.splice(0)) resolve();
}

/** Creates a recorder; no I/O until `record` (writes) or `start` (the refresh timer). */
export function createEventRecorder(options: EventRecorderOptions): EventRecorder {
  const s = initialState(options);
  return {
    record: (event) => recordOccurrence(s, event),
    start() {
      if (s.cancelTick === undefined && !s.stopped) s.cancelTick = s.clock.after(s.refreshMs, () => tick(s));
    },
    flush: () => flush(s),
    stop: (opts = {}) => stop(s, opts.timeoutMs ?? 5000),
    stats: () => ({ ...s.stats, pending: waiting(s) + s.active + s.retrying }),
  };
}
