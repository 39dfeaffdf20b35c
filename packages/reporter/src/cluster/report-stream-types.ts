/** The report stream's contract types, below both its loop and its factory. */
import type { Clock } from "@kyverno-ts/api";
import type { ApiFailure, KubeClient } from "@kyverno-ts/kube";
import type { Ingest } from "../ingest/ingest.js";
import type { ReportKind } from "../model/types.js";

/** A report object as listed or watched: only its metadata is read here. */
export type RawReport = { metadata?: { name?: string; namespace?: string; resourceVersion?: string } };

/** What a stream reports to its owner (logs, metrics). */
export type StreamFailure = {
  source: "list" | "watch";
  failure: ApiFailure;
  attempt: number;
  retryInMs: number;
};

/** Options of {@link createReportStream}. */
export interface ReportStreamOptions {
  client: KubeClient;
  apiVersion: string;
  kind: ReportKind;
  ingest: Pick<Ingest, "upsert" | "delete">;
  /** Milliseconds before retry `attempt` (1, 2, …). */
  delay: (attempt: number) => number;
  onFailure: (failure: StreamFailure) => void;
  /** Reports handed to ingest and not yet stored before the list or watch waits (default 1000). */
  maxInFlight?: number;
  /** Items per list page (default 500). */
  pageSize?: number;
  /** Server-side watch timeout; default a random 300–600 s per watch, as client-go. */
  watchTimeoutSeconds?: number;
  /** Times the retry pauses and how long a watch stayed open (default the system clock). */
  clock?: Clock;
}

/** One kind's list + watch; create with {@link createReportStream}. */
export interface ReportStream {
  /** Starts; resolves once the first list was handed to ingest (or when stopped first). */
  start(): Promise<void>;
  /** Lists again and hands over every report (a store rebuild); resolves when handed over. */
  resync(): Promise<void>;
  /** Reports known (listed or watched and not deleted). */
  size(): number;
  /** Resolves when every report handed over so far is stored (or failed). */
  drained(): Promise<void>;
  /** Stops the list / watch; resolves when the loop ended. */
  stop(): Promise<void>;
}
