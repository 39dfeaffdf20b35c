/** The event recorder's contract: its options, counters and surface (`createEventRecorder`). */
import type { Clock, Logger } from "@kyverno-ts/api";
import type { KubeClient } from "../client/client.js";
import type { EventRecord } from "./event.js";

/** The log lines the recorder writes: the repository's `Logger` (and pino) fit. */
export type EventRecorderLogger = Pick<Logger, "debug" | "warn">;

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
  /**
   * Distinct notes of similar occurrences (same source, object, type, reason and action) after which
   * the next ones fold into one `(combined from similar events): …` series instead of an Event each
   * (default 10, client-go's EventAggregator `maxEvents`; 0: never combine). Thousands of resources
   * failing one policy then cost the policy a handful of Events and a count, not one Event each.
   */
  similarEvents?: number;
  /** Similar occurrences further apart than this start counting anew (default 10 min, client-go's). */
  similarWindowMs?: number;
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
  /** Turned into a `(combined from similar events)` occurrence (see `similarEvents`). */
  combined: number;
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
