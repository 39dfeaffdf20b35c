/**
 * The event recorder's state and its write path: the bounded queue of series to write, the workers
 * that take from it under the token bucket (creating an Event, or patching a series' count), and the
 * retries of failures the API server may recover from. Functions over one `RecorderState`, built by
 * `createEventRecorder`; the record path (series, spam filter, refresh) is in `recorder-series.ts`.
 */
import { type Clock, type KubeObject, sleep } from "@kyverno-ts/api";
import type { TokenBucket } from "../ratelimit/token-bucket.js";
import { EVENT_API_VERSION, type EventSeries, eventObject, seriesPatch } from "./event.js";
import type { EventRecorderOptions, EventRecorderStats } from "./recorder-types.js";

/** One series: the Event it writes, and where its writes stand. */
export interface Entry extends EventSeries {
  key: string;
  created: boolean;
  /** The count the API server has. */
  written: number;
  queued: boolean;
  /** A write is in flight; `again`: it was asked for once more meanwhile. */
  writing: boolean;
  again: boolean;
  tries: number;
  /** Used since an eviction sweep last passed it (see `evictOldest`). */
  used: boolean;
}

/** A spam-filter bucket of one source and object. */
export interface SpamBucket {
  tokens: number;
  lastMs: number;
}

/** Distinct notes of similar occurrences seen recently (client-go's aggregate record). */
export interface SimilarRecord {
  /**
   * Their hashes (`noteHash`): 4,096 records of up to `similarEvents` notes each would keep megabytes
   * of messages only to count them; two of ten notes share a 30-bit hash about once in 20 million.
   */
  notes: Set<number>;
  lastMs: number;
  /** Used since an eviction sweep last passed it (see `evictOldest`). */
  used: boolean;
}

/** Counters since creation (`EventRecorderStats` without `pending`). */
export type RecorderCounters = Omit<EventRecorderStats, "pending">;

/** One recorder: its settings (the options with their defaults) and what changes as it runs. */
export interface RecorderState {
  readonly options: EventRecorderOptions;
  readonly clock: Clock;
  readonly omit: ReadonlySet<string>;
  readonly maxQueued: number;
  readonly workers: number;
  readonly spamBurst: number;
  readonly spamRefillMs: number;
  readonly windowMs: number;
  readonly refreshMs: number;
  readonly maxTries: number;
  readonly retryDelayMs: number;
  readonly maxSeries: number;
  /** Distinct notes before similar occurrences combine (0: never), and their window. */
  readonly maxSimilar: number;
  readonly similarWindowMs: number;
  readonly bucket: TokenBucket;
  /** Running series by `seriesKey`, oldest first. */
  readonly series: Map<string, Entry>;
  /** Spam-filter buckets by `sourceObjectKey`, oldest first. */
  readonly spam: Map<string, SpamBucket>;
  /** Similar-occurrence records by `similarKey`, oldest first. */
  readonly similar: Map<string, SimilarRecord>;
  /** Series waiting to be written, from `head` on. */
  readonly queue: Entry[];
  head: number;
  /** Writes in flight, and writes waiting to retry. */
  active: number;
  retrying: number;
  /** Makes the names of Events created in the same millisecond distinct. */
  sequence: number;
  stopped: boolean;
  cancelTick: (() => void) | undefined;
  /** Writes start after the caller's turn of the event loop: `record` itself only enqueues. */
  pumpScheduled: boolean;
  readonly cancelRetries: Set<() => void>;
  readonly abort: AbortController;
  /** Resolved once nothing is waiting or in flight. */
  readonly idle: Array<() => void>;
  readonly stats: RecorderCounters;
}

const retryable = (status: number): boolean => status === 0 || status === 429 || status >= 500;

/** Series waiting in the queue. */
export function waiting(s: RecorderState): number {
  return s.queue.length - s.head;
}

/** Something is waiting, in flight or waiting to retry. */
export function busy(s: RecorderState): boolean {
  return waiting(s) > 0 || s.active > 0 || s.retrying > 0;
}

/** Resolves the `flush` callers once the recorder is idle. */
export function settle(s: RecorderState): void {
  if (busy(s)) return;
  for (const resolve of s.idle.splice(0)) resolve();
}

/** Queues a write of the series (once; again after the one in flight). */
export function enqueue(s: RecorderState, entry: Entry): void {
  if (entry.queued || s.stopped) return;
  if (entry.writing) {
    entry.again = true;
    return;
  }
  entry.queued = true;
  s.queue.push(entry);
  schedulePump(s);
}

function schedulePump(s: RecorderState): void {
  if (s.pumpScheduled) return;
  s.pumpScheduled = true;
  setImmediate(() => {
    s.pumpScheduled = false;
    pump(s);
  });
}

function take(s: RecorderState): Entry {
  const entry = s.queue[s.head] as Entry;
  s.head++;
  if (s.head > 1024 && s.head * 2 > s.queue.length) {
    s.queue.splice(0, s.head);
    s.head = 0;
  }
  return entry;
}

/** Starts writes while workers are free and series wait. */
function pump(s: RecorderState): void {
  while (!s.stopped && s.active < s.workers && waiting(s) > 0) {
    const entry = take(s);
    s.active++;
    entry.queued = false;
    entry.writing = true;
    void write(s, entry).finally(() => {
      s.active--;
      entry.writing = false;
      if (entry.again) {
        entry.again = false;
        if (!entry.created || entry.count > entry.written) enqueue(s, entry);
      }
      pump(s);
      settle(s);
    });
  }
}

function retry(s: RecorderState, entry: Entry): void {
  s.retrying++;
  const delay = s.retryDelayMs * (0.75 + Math.random() * 0.5);
  const cancel = s.clock.after(delay, () => {
    s.cancelRetries.delete(cancel);
    s.retrying--;
    enqueue(s, entry);
    settle(s);
  });
  s.cancelRetries.add(cancel);
}

function giveUp(s: RecorderState, entry: Entry, status: number, reason: string, message: string): void {
  s.stats.failed++;
  entry.tries = 0;
  s.options.logger?.warn(
    { reason: entry.record.reason, regarding: entry.record.regarding, status, failure: reason, message },
    "cannot write event",
  );
  s.options.onDrop?.("failed");
}

function instanceOf(s: RecorderState, entry: Entry): string {
  return `${entry.record.reportingController}-${s.options.identity}`;
}

/** Writes the series once (create, or patch its count); on failure requeues, retries or gives up. */
async function write(s: RecorderState, entry: Entry): Promise<void> {
  const { client } = s.options;
  const { signal } = s.abort;
  const wait = s.bucket.reserve();
  if (wait > 0 && !(await sleep(s.clock, wait, signal))) return;
  const count = entry.count;
  const creating = !entry.created;
  const result = creating
    ? // Nobody reads the created Event back: only its metadata is decoded.
      await client.create<KubeObject>(eventObject(entry, instanceOf(s, entry)), { signal, decode: "header" })
    : await client.patch<KubeObject>(
        { apiVersion: EVENT_API_VERSION, kind: "Event", name: entry.name, namespace: entry.namespace },
        { type: "merge", patch: seriesPatch(entry) },
        { signal },
      );
  if (result.ok) {
    if (creating) s.stats.created++;
    else s.stats.patched++;
    entry.created = true;
    entry.written = count;
    entry.tries = 0;
    // The first repetition is written at once (client-go); later ones at the next refresh.
    if (creating && entry.count > count && count === 1) enqueue(s, entry);
    return;
  }
  if (s.stopped || result.reason === "Aborted") return;
  if (!creating && result.status === 404) {
    // Deleted (or expired by the API server's TTL): write the series anew.
    entry.created = false;
    enqueue(s, entry);
    return;
  }
  if (creating && result.status === 409) {
    entry.created = true;
    entry.written = count;
    return;
  }
  if (retryable(result.status) && ++entry.tries < s.maxTries) retry(s, entry);
  else giveUp(s, entry, result.status, result.reason, result.message);
}
