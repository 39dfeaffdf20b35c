/**
 * The batching writer's write loop as module functions over one per-writer `WriterState`: taking
 * batches off the queue, writing them in one transaction, and on failure parking everything while the
 * store is unavailable (no attempt used up) or retrying one by one with backoff.
 */
import { isReporterError, ReporterError } from "../errors.js";
import type { WriteOp } from "../store/types.js";
import type { BatchWriterOptions, WriteOutcome } from "./writer-types.js";

/** A queued operation and its caller. */
export interface Entry {
  op: WriteOp;
  attempt: number;
  resolve: (outcome: WriteOutcome) => void;
}

/** What one writer holds. */
export interface WriterState {
  readonly options: BatchWriterOptions;
  readonly maxBatch: number;
  readonly attempts: number;
  readonly backoff: number;
  readonly maxBackoff: number;
  /** Operations to write, one per report (the newest). */
  readonly queue: Map<string, Entry>;
  /** Operations waiting for their retry timer. */
  readonly retrying: Map<string, Entry>;
  running: Promise<void> | undefined;
  idleWaiters: Array<() => void>;
  /** Operations of the batch being written. */
  inFlight: number;
  /** Set while the store is unavailable (consecutive failed rounds, first failure, last error). */
  outage: { rounds: number; since: number; error: ReporterError; waiting: boolean } | undefined;
}

/** The report an operation is about (a newer operation on it supersedes an older one). */
export function keyOf(op: WriteOp): string {
  return op.type === "upsert" ? op.report.id : op.reportId;
}

/** Nothing queued, in flight or waiting for a retry. */
export const isIdle = (state: WriterState): boolean =>
  !state.running && state.queue.size === 0 && state.retrying.size === 0;

function settleIdle(state: WriterState): void {
  if (!isIdle(state)) return;
  const list = state.idleWaiters;
  state.idleWaiters = [];
  for (const resolve of list) resolve();
}

/** True when the store itself cannot take writes now (not just this batch). */
async function storeUnavailable(state: WriterState, error: ReporterError): Promise<boolean> {
  if (error.code === "STORE_DISK_FULL") return true;
  try {
    await state.options.store.ping();
    return false;
  } catch {
    return true;
  }
}

/** Queues `retry` again after `delay` (unless superseded meanwhile) and writes. */
function schedule(state: WriterState, retry: Entry[], delay: number, before?: () => void): void {
  state.options.clock.after(delay, () => {
    before?.();
    for (const entry of retry) {
      const key = keyOf(entry.op);
      if (state.retrying.get(key) !== entry) continue; // superseded meanwhile
      state.retrying.delete(key);
      state.queue.set(key, entry);
    }
    kick(state);
    settleIdle(state);
  });
}

/**
 * Parks a batch — and everything queued behind it — while the store is unavailable; no attempt is
 * used up. New operations queue without a write until the retry timer fires (one try per round).
 */
function waitForStore(state: WriterState, entries: Entry[], error: ReporterError): void {
  const { options, queue, retrying } = state;
  options.onError?.(error);
  const first = state.outage === undefined;
  const outage = {
    rounds: (state.outage?.rounds ?? 0) + 1,
    since: state.outage?.since ?? options.clock.now(),
    error,
    waiting: true,
  };
  state.outage = outage;
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
  const delay = Math.min(state.maxBackoff, state.backoff * 2 ** (outage.rounds - 1));
  const fields = {
    code: error.code,
    reports: queue.size + retrying.size,
    delayMs: delay,
    err: error.message,
  };
  const message = "store unavailable; writes are kept and retried until it answers";
  // One error when the outage starts, then a warning per retry round (at most one per `maxBackoffMs`).
  if (first) options.logger.error(fields, message);
  else options.logger.warn(fields, message);
  schedule(state, retry, delay, () => {
    outage.waiting = false;
  });
}

/** Retries the entries that have attempts left after a backoff; drops the others. */
function retryLater(state: WriterState, entries: Entry[], error: ReporterError): void {
  const { options, queue, retrying } = state;
  options.onError?.(error);
  const retry: Entry[] = [];
  for (const entry of entries) {
    if (entry.attempt >= state.attempts) {
      options.logger.error(
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
  const delay = Math.min(state.maxBackoff, state.backoff * 2 ** (attempt - 1));
  options.logger.warn(
    { code: error.code, reports: retry.length, delayMs: delay, err: error.message },
    "store write failed; retrying",
  );
  schedule(state, retry, delay);
}

/** Writes one batch in a transaction; on failure waits for the store, retries, or splits the batch. */
async function writeBatch(state: WriterState, batch: Entry[]): Promise<void> {
  const { options, queue, retrying } = state;
  for (const e of batch) e.attempt++;
  state.inFlight = batch.length;
  try {
    await options.store.write(batch.map((e) => e.op));
    state.inFlight = 0;
    // Behind until everything kept during the outage is written.
    if (state.outage && queue.size + retrying.size === 0) {
      options.logger.info(
        { behindMs: options.clock.now() - state.outage.since },
        "store caught up after being unavailable",
      );
      state.outage = undefined;
    }
    for (const e of batch) e.resolve({ status: "written" });
  } catch (err) {
    const error = isReporterError(err)
      ? err
      : new ReporterError("STORE_WRITE_FAILED", String(err), { cause: err });
    const unavailable = await storeUnavailable(state, error);
    state.inFlight = 0;
    if (unavailable) {
      waitForStore(state, batch, error);
      return;
    }
    if (batch.length === 1) {
      retryLater(state, batch, error);
      return;
    }
    options.onError?.(error);
    options.logger.warn(
      { code: error.code, reports: batch.length, err: error.message },
      "batch write failed; writing one by one",
    );
    for (const e of batch) {
      e.attempt--;
      const key = keyOf(e.op);
      // The store went away meanwhile: the rest waits in the queue for the outage's retry round.
      if (state.outage?.waiting) {
        if (queue.has(key)) e.resolve({ status: "superseded" });
        else queue.set(key, e);
      } else await writeBatch(state, [e]);
    }
  }
}

async function loop(state: WriterState): Promise<void> {
  const { queue } = state;
  while (queue.size > 0 && !state.outage?.waiting) {
    const batch: Entry[] = [];
    for (const [key, entry] of queue) {
      batch.push(entry);
      queue.delete(key);
      if (batch.length >= state.maxBatch) break;
    }
    await writeBatch(state, batch);
  }
}

/** Starts writing unless a loop runs, nothing is queued or the store is awaited. */
export function kick(state: WriterState): void {
  if (state.running || state.queue.size === 0 || state.outage?.waiting) return;
  // Start on the next turn, so operations enqueued in the same burst share a transaction.
  state.running = new Promise<void>((resolve) => setImmediate(resolve))
    .then(() => loop(state))
    .finally(() => {
      state.running = undefined;
      kick(state);
      settleIdle(state);
    });
}
