/**
 * The batching writer between ingest and the store. Operations queue per report (a newer one
 * supersedes a queued or retrying older one), are written in batches of up to `maxBatch` in one
 * transaction, and on failure are retried with exponential backoff — one by one, so a single bad
 * report cannot hold back the rest. A full disk retries the whole batch without splitting it.
 */
import type { Clock } from "../clock.js";
import { isReporterError, ReporterError } from "../errors.js";
import type { Logger } from "../logger.js";
import type { ReportStore, WriteOp } from "../store/types.js";

/** How a queued write ended. */
export type WriteOutcome =
  | { status: "written" }
  | { status: "superseded" }
  | { status: "failed"; error: ReporterError };

/** Options of {@link createBatchWriter}. */
export interface BatchWriterOptions {
  store: ReportStore;
  clock: Clock;
  logger: Logger;
  /** Reports per transaction; default 200. */
  maxBatch?: number;
  /** Attempts per operation before it is dropped; default 5 (as upstream's work queue). */
  attempts?: number;
  /** First retry delay; doubles per attempt up to 60 s. Default 1000 ms. */
  backoffMs?: number;
  /** Called for every failed write (metrics). */
  onError?: (error: ReporterError) => void;
}

/** The writer. */
export interface BatchWriter {
  /** Queues an operation; resolves when it is written, superseded, or dropped after the last attempt. */
  enqueue(op: WriteOp): Promise<WriteOutcome>;
  /** Resolves when nothing is queued, in flight or waiting for a retry. */
  idle(): Promise<void>;
  /** Number of queued operations (including those waiting for a retry). */
  pending(): number;
}

interface Entry {
  op: WriteOp;
  attempt: number;
  resolve: (outcome: WriteOutcome) => void;
}

function keyOf(op: WriteOp): string {
  return op.type === "upsert" ? op.report.id : op.reportId;
}

/** Creates a {@link BatchWriter}. */
export function createBatchWriter(options: BatchWriterOptions): BatchWriter {
  const { store, clock, logger } = options;
  const maxBatch = options.maxBatch ?? 200;
  const attempts = options.attempts ?? 5;
  const backoff = options.backoffMs ?? 1000;
  const queue = new Map<string, Entry>();
  const retrying = new Map<string, Entry>();
  let running: Promise<void> | undefined;
  let idleWaiters: Array<() => void> = [];

  const isIdle = () => !running && queue.size === 0 && retrying.size === 0;
  const settleIdle = () => {
    if (!isIdle()) return;
    const list = idleWaiters;
    idleWaiters = [];
    for (const resolve of list) resolve();
  };

  const retryLater = (entries: Entry[], error: ReporterError) => {
    options.onError?.(error);
    const retry: Entry[] = [];
    for (const entry of entries) {
      if (entry.attempt >= attempts) {
        logger.error(
          { code: error.code, report: keyOf(entry.op), attempts: entry.attempt, err: error.message },
          "dropping report write after the last attempt",
        );
        entry.resolve({ status: "failed", error });
      } else if (!queue.has(keyOf(entry.op))) {
        retry.push(entry);
        retrying.set(keyOf(entry.op), entry);
      } else entry.resolve({ status: "superseded" });
    }
    if (retry.length === 0) return;
    const attempt = Math.min(...retry.map((e) => e.attempt));
    const delay = Math.min(60_000, backoff * 2 ** (attempt - 1));
    logger.warn(
      { code: error.code, reports: retry.length, delayMs: delay, err: error.message },
      "store write failed; retrying",
    );
    clock.setTimeout(() => {
      for (const entry of retry) {
        const key = keyOf(entry.op);
        if (retrying.get(key) !== entry) continue; // superseded meanwhile
        retrying.delete(key);
        queue.set(key, entry);
      }
      kick();
      settleIdle();
    }, delay);
  };

  const writeBatch = async (batch: Entry[]): Promise<void> => {
    for (const e of batch) e.attempt++;
    try {
      await store.write(batch.map((e) => e.op));
      for (const e of batch) e.resolve({ status: "written" });
    } catch (err) {
      const error = isReporterError(err)
        ? err
        : new ReporterError("STORE_WRITE_FAILED", String(err), { cause: err });
      if (batch.length === 1 || error.code === "STORE_DISK_FULL") {
        retryLater(batch, error);
        return;
      }
      options.onError?.(error);
      logger.warn(
        { code: error.code, reports: batch.length, err: error.message },
        "batch write failed; writing one by one",
      );
      for (const e of batch) {
        e.attempt--;
        await writeBatch([e]);
      }
    }
  };

  const loop = async () => {
    while (queue.size > 0) {
      const batch: Entry[] = [];
      for (const [key, entry] of queue) {
        batch.push(entry);
        queue.delete(key);
        if (batch.length >= maxBatch) break;
      }
      await writeBatch(batch);
    }
  };

  const kick = () => {
    if (running || queue.size === 0) return;
    // Start on the next turn, so operations enqueued in the same burst share a transaction.
    running = new Promise<void>((resolve) => setImmediate(resolve)).then(loop).finally(() => {
      running = undefined;
      kick();
      settleIdle();
    });
  };

  return {
    enqueue(op) {
      return new Promise<WriteOutcome>((resolve) => {
        const key = keyOf(op);
        const older = queue.get(key) ?? retrying.get(key);
        older?.resolve({ status: "superseded" });
        queue.delete(key);
        retrying.delete(key);
        queue.set(key, { op, attempt: 0, resolve });
        kick();
      });
    },
    idle() {
      if (isIdle()) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
    pending: () => queue.size + retrying.size,
  };
}
