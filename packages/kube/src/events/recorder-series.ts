/**
 * The event recorder's record path: an occurrence is omitted, folded into a running series, combined
 * with similar ones past `similarEvents` distinct notes, or becomes a new series past the spam filter
 * and the queue bound; the periodic refresh writes running
 * series' counts and forgets ended series and refilled spam buckets. Functions over one
 * `RecorderState` (see `recorder-queue.ts` for the write path).
 */
import { fnv1a32 } from "@kyverno-ts/api";
import {
  combinedRecord,
  combinedSeriesKey,
  type EventRecord,
  eventName,
  type RecordKeys,
  recordKeys,
  seriesKey,
  similarKey,
  sourceObjectKey,
} from "./event.js";
import { type Entry, enqueue, type RecorderState, type SimilarRecord, waiting } from "./recorder-queue.js";
import type { EventDropReason } from "./recorder-types.js";

/** Takes a spam-filter token for a new Event; false when the source has created too many about the object. */
function admit(s: RecorderState, record: EventRecord, keys: RecordKeys, now: number): boolean {
  const { spam, maxSeries, spamBurst } = s;
  const key = sourceObjectKey(record, keys);
  let b = spam.get(key);
  if (b === undefined) {
    // client-go keeps 4096 buckets (an LRU); forgetting one gives that pair a full bucket again.
    evictOldest(spam, maxSeries);
    b = { tokens: spamBurst, lastMs: now };
    spam.set(key, b);
  } else {
    b.tokens = Math.min(spamBurst, b.tokens + (now - b.lastMs) / s.spamRefillMs);
    b.lastMs = now;
  }
  if (b.tokens < 1) return false;
  b.tokens -= 1;
  return true;
}

function drop(s: RecorderState, reason: EventDropReason, record: EventRecord): void {
  const { logger } = s.options;
  const fields = { reason: record.reason, regarding: record.regarding, dropped: reason };
  if (reason === "queueFull" && s.stats.queueFull % 1000 === 1)
    logger?.warn(
      { ...fields, queueFull: s.stats.queueFull, maxQueued: s.maxQueued },
      "event queue full, dropping events",
    );
  else logger?.debug(fields, "event dropped");
  s.options.onDrop?.(reason);
}

/**
 * Forgets the least recently used eighth of a bounded map once it holds `max` entries, oldest first:
 * in bulk, since reading a Map's first key after many deletions at its front walks the holes they
 * leave. Recency is client-go's LRU approximated by a second chance: a hit only marks its entry `used`
 * (moving it to the end of the Map on every hit costs more than the rest of `record`), and the sweep
 * moves a marked entry to the end, unmarked, instead of forgetting it.
 */
function evictOldest<V extends object>(
  map: Map<string, V>,
  max: number,
  forget: (value: V) => void = () => undefined,
): void {
  if (map.size < max) return;
  let n = Math.max(1, Math.floor(max / 8));
  for (const [key, value] of map) {
    if (n === 0) break;
    map.delete(key);
    const marked = value as { used?: boolean };
    if (marked.used === true) {
      marked.used = false;
      map.set(key, value);
      continue;
    }
    forget(value);
    n--;
  }
}

/** Forgets the least recently used eighth of the series (their pending counts are queued first). */
function forgetOldest(s: RecorderState): void {
  evictOldest(s.series, s.maxSeries, (entry) => {
    if (entry.created && entry.count > entry.written) enqueue(s, entry);
  });
}

/** Folds the occurrence into its running series; false when there is none within the window. */
function aggregate(s: RecorderState, key: string, now: number): boolean {
  const running = s.series.get(key);
  if (running !== undefined && now - running.lastMs <= s.windowMs) {
    running.count++;
    running.lastMs = now;
    // Recently used (client-go's LRU): a busy series is not the one forgotten first.
    running.used = true;
    s.stats.aggregated++;
    if (running.created && running.written === 1) enqueue(s, running);
    return true;
  }
  if (running !== undefined) {
    // The series ended: its last count is written, the occurrence starts a new one.
    if (running.created && running.count > running.written) enqueue(s, running);
    s.series.delete(key);
  }
  return false;
}

/** FNV-1a of a note, to 30 bits (a small integer V8 stores without allocating). */
const noteHash = (note: string): number => fnv1a32(note) & 0x3fffffff;

/**
 * Counts the occurrence's note among the similar ones of the window (client-go's EventAggregator):
 * true once `maxSimilar` distinct notes were seen, when it is to be combined. The set stays below the
 * limit (client-go pops one), so the count goes on while similar occurrences keep coming.
 */
function similarPastLimit(s: RecorderState, event: EventRecord, key: string, now: number): boolean {
  if (s.maxSimilar === 0) return false;
  let record: SimilarRecord | undefined = s.similar.get(key);
  if (record === undefined || now - record.lastMs > s.similarWindowMs) {
    if (record === undefined) evictOldest(s.similar, s.maxSeries);
    record = { notes: new Set(), lastMs: now, used: record !== undefined };
    s.similar.set(key, record);
  } else {
    // Recently used (client-go's LRU): a policy failing on many objects keeps its record while the
    // records of those objects come and go.
    record.used = true;
  }
  record.lastMs = now;
  const note = noteHash(event.note);
  record.notes.add(note);
  if (record.notes.size < s.maxSimilar) return false;
  record.notes.delete(note);
  return true;
}

/** Records one occurrence (`EventRecorder.record`); never blocks, never throws. */
export function recordOccurrence(s: RecorderState, occurrence: EventRecord): void {
  s.stats.recorded++;
  if (s.stopped) return;
  if (s.omit.has(occurrence.reason)) {
    s.stats.omitted++;
    return;
  }
  const now = s.clock.now();
  let event = occurrence;
  // The objects' keys are made once for the series, similar and spam-filter keys.
  let keys = recordKeys(event);
  const similar = similarKey(event, keys);
  let key = seriesKey(event, keys, similar);
  if (aggregate(s, key, now)) return;
  if (similarPastLimit(s, event, similar, now)) {
    s.stats.combined++;
    key = combinedSeriesKey(event, similar);
    if (aggregate(s, key, now)) return;
    event = combinedRecord(event);
    keys = { regarding: keys.regarding, related: "" };
  }
  if (!admit(s, event, keys, now)) {
    s.stats.spamFiltered++;
    drop(s, "spam", event);
    return;
  }
  if (waiting(s) >= s.maxQueued) {
    s.stats.queueFull++;
    drop(s, "queueFull", event);
    return;
  }
  if (s.series.size >= s.maxSeries) forgetOldest(s);
  const entry: Entry = {
    key,
    record: event,
    name: eventName(event.regarding.name, now, s.sequence++),
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
    used: false,
  };
  s.series.set(key, entry);
  enqueue(s, entry);
}

/** Writes the counts of running series and forgets ended series and refilled spam buckets. */
export function refresh(s: RecorderState): void {
  const now = s.clock.now();
  for (const [key, entry] of s.series) {
    if (entry.created && entry.count > entry.written) enqueue(s, entry);
    if (now - entry.lastMs > s.windowMs) s.series.delete(key);
  }
  for (const [key, b] of s.spam)
    if (now - b.lastMs >= (s.spamBurst - b.tokens) * s.spamRefillMs) s.spam.delete(key);
  for (const [key, record] of s.similar) if (now - record.lastMs > s.similarWindowMs) s.similar.delete(key);
}

/** The periodic refresh: refreshes, then schedules the next one unless stopped. */
export function tick(s: RecorderState): void {
  refresh(s);
  if (!s.stopped) s.cancelTick = s.clock.after(s.refreshMs, () => tick(s));
}
