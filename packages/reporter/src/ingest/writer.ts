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
import type { Clock } from "@kyverno-ts/api";
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
  /** First retry delay; doubles per attempt up to `maxBackoffMs`. Default 1000 ms. */
  backoffMs?: number;
  /** Longest retry delay (also while the store is unavailable); default 30 s, as client-go's reflector. */
  maxBackoffMs?: number;
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
  /** Set while writes wait for an unavailable store: since when, how many, and the last error. */
  behind(): StoreBehind | undefined;
}

/** Why the store is behind the cluster: writes wait for it to answer again. */
export interface StoreBehind {
  /** When the first write failed because the store was unavailable (clock milliseconds). */
  since: number;
  /** Operations waiting (queued or for a retry). */
  pending: number;
  /** The last store error code and message (no connection details are added here). */
  code: string;
  error: string;
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
  const maxBackoff = options.maxBackoffMs ?? 30_000;
  const queue = new Map<string, Entry>();
  const retrying = new Map<string, Entry>();
  let running: Promise<void> | undefined;
  let idleWaiters: Array<() => void> = [];
  /** Set while the store is unavailable (consecutive failed rounds, first failure, last error). */
  /** Operations of the batch being written. */
  let inFlight = 0;
  let outage: { rounds: number; since: number; error: ReporterError; waiting: boolean } | undefined;

  const isIdle = () => !running && queue.size === 0 && retrying.size === 0;
  const settleIdle = () => {
    if (!isIdle()) return;
    const list = idleWaiters;
    idleWaiters = [];
    for (const resolve of list) resolve();
  };

  /** True when the store itself cannot take writes now (not just this batch). */
  const storeUnavailable = async (error: ReporterError): Promise<boolean> => {
    if (error.code === "STORE_DISK_FULL") return true;
    try {
      await store.ping();
      return false;
    } catch {
      return true;
    }
  };

  const schedule = (retry: Entry[], delay: number, before?: () => void) => {
    clock.after(delay, () => {
      before?.();
      for (const entry of retry) {
        const key = keyOf(entry.op);
        if (retrying.get(key) !== entry) continue; // superseded meanwhile
        retrying.delete(key);
        queue.set(key, entry);
      }
      kick();
      settleIdle();
    });
  };

  /**
   * Parks a batch — and everything queued behind it — while the store is unavailable; no attempt is
   * used up. New operations queue without a write until the retry timer fires (one try per round).
   */
  const waitForStore = (entries: Entry[], error: ReporterError) => {
    options.onError?.(error);
    const first = outage === undefined;
    outage = { rounds: (outage?.rounds ?? 0) + 1, since: outage?.since ?? clock.now(), error, waiting: true };
    const retry: Entry[] = [];
    for (const entry of entries) {
      entry.attempt--;
      const key = keyOf(entry.op);
      if (queue.has(key)) entry.resolve({ status: "superseded" });
      else {
        retry.push(entry);
        retrying.set(key, entry);
      }
    }
    const delay = Math.min(maxBackoff, backoff * 2 ** (outage.rounds - 1));
    const fields = {
      code: error.code,
      reports: queue.size + retrying.size,
      delayMs: delay,
      err: error.message,
    };
    const message = "store unavailable; writes are kept and retried until it answers";
    // One error when the outage starts, then a warning per retry round (at most one per `maxBackoffMs`).
    if (first) logger.error(fields, message);
    else logger.warn(fields, message);
    const current = outage;
    schedule(retry, delay, () => {
      current.waiting = false;
    });
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
    const delay = Math.min(maxBackoff, backoff * 2 ** (attempt - 1));
    logger.warn(
      { code: error.code, reports: retry.length, delayMs: delay, err: error.message },
      "store write failed; retrying",
    );
    schedule(retry, delay);
  };

  const writeBatch = async (batch: Entry[]): Promise<void> => {
    for (const e of batch) e.attempt++;
    inFlight = batch.length;
    try {
      await store.write(batch.map((e) => e.op));
      inFlight = 0;
      // Behind until everything kept during the outage is written.
      if (outage && queue.size + retrying.size === 0) {
        logger.info({ behindMs: clock.now() - outage.since }, "store caught up after being unavailable");
        outage = undefined;
      }
      for (const e of batch) e.resolve({ status: "written" });
    } catch (err) {
      const error = isReporterError(err)
        ? err
        : new ReporterError("STORE_WRITE_FAILED", String(err), { cause: err });
      const unavailable = await storeUnavailable(error);
      inFlight = 0;
      if (unavailable) {
        waitForStore(batch, error);
        return;
      }
      if (batch.length === 1) {
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
        const key = keyOf(e.op);
        // The store went away meanwhile: the rest waits in the queue for the outage's retry round.
        if (outage?.waiting) {
          if (queue.has(key)) e.resolve({ status: "superseded" });
          else queue.set(key, e);
        } else await writeBatch([e]);
      }
    }
  };

  const loop = async () => {
    while (queue.size > 0 && !outage?.waiting) {
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
    if (running || queue.size === 0 || outage?.waiting) return;
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
    behind() {
      const pending = queue.size + retrying.size + inFlight;
      if (!outage || pending === 0) return undefined;
      return { since: outage.since, pending, code: outage.error.code, error: outage.error.message };
    },
  };
}
