/** The batching writer's contract types, below both its write loop and its factory. */
import type { Clock } from "@kyverno-ts/api";
import type { ReporterError } from "../errors.js";
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
