/**
 * The batching writer between ingest and the store. Operations queue per report (a newer one
 * supersedes a queued or retrying older one), are written in batches of up to `maxBatch` in one
 * transaction, and on failure are retried with exponential backoff — one by one, so a single bad
 * report cannot hold back the rest.
 *
 * A failure while the store itself is unavailable (its ping fails, or the disk is full) costs no
 * attempt: the batch is kept whole and retried (backoff capped at `maxBackoffMs`) until the store
 * answers again, so an outage of any length loses no write. Meanwhile the store is *behind*
 * ({@link BatchWriter.behind}); the queue holds one operation per report (the newest), so it is
 * bounded by the reports the cluster had during the outage. Only a write the reachable store keeps
 * refusing (a report the database cannot take) is dropped after `attempts`.
 */
import { type Entry, isIdle, keyOf, kick, type WriterState } from "./writer-loop.js";
import type { BatchWriter, BatchWriterOptions, WriteOutcome } from "./writer-types.js";

export type {
  BatchWriter,
  BatchWriterOptions,
  StoreBehind,
  WriteOutcome,
} from "./writer-types.js";

/** Creates a {@link BatchWriter}. */
export function createBatchWriter(options: BatchWriterOptions): BatchWriter {
  const state: WriterState = {
    options,
    maxBatch: options.maxBatch ?? 200,
    attempts: options.attempts ?? 5,
    backoff: options.backoffMs ?? 1000,
    maxBackoff: options.maxBackoffMs ?? 30_000,
    queue: new Map<string, Entry>(),
    retrying: new Map<string, Entry>(),
    running: undefined,
    idleWaiters: [],
    inFlight: 0,
    outage: undefined,
  };
  const { queue, retrying } = state;

  return {
    enqueue(op) {
      return new Promise<WriteOutcome>((resolve) => {
        const key = keyOf(op);
        const older = queue.get(key) ?? retrying.get(key);
        older?.resolve({ status: "superseded" });
        queue.delete(key);
        retrying.delete(key);
        queue.set(key, { op, attempt: 0, resolve });
        kick(state);
      });
    },
    idle() {
      if (isIdle(state)) return Promise.resolve();
      return new Promise((resolve) => state.idleWaiters.push(resolve));
    },
    pending: () => queue.size + retrying.size,
    behind() {
      const pending = queue.size + retrying.size + state.inFlight;
      const { outage } = state;
      if (!outage || pending === 0) return undefined;
      return { since: outage.since, pending, code: outage.error.code, error: outage.error.message };
    },
  };
}
