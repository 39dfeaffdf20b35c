/**
 * The ingest entry point: the informer glue calls `upsert` / `delete` with raw report objects.
 * Each event is normalised (problems logged and counted), filtered, debounced (an update that
 * empties a report is held for a minute and dropped if a non-empty update comes first), then
 * handed to the listeners in parallel: metrics (synchronously), the store (batched) and any
 * others (notifications), each in order per report.
 */
import { type Clock, createSystemClock } from "@kyverno-ts/api";
import type { ReporterError } from "../errors.js";
import { type Logger, silentLogger } from "../logger.js";
import type { ReporterMetrics } from "../metrics/metrics.js";
import { reportId } from "../model/ids.js";
import { formatIssue, type ModelIssue } from "../model/issues.js";
import { normalizeReport } from "../model/normalize.js";
import type { Report, ReportKind } from "../model/types.js";
import type { ReportStore } from "../store/types.js";
import { compileIngestFilters, type IngestFilters } from "./filters.js";
import { createBatchWriter, type StoreBehind } from "./writer.js";

/** A report event as listeners receive it. */
export type IngestEvent =
  | { type: "added" | "updated"; report: Report }
  | { type: "deleted"; reportId: string };

/** Something that reacts to report events (the notifier); events of one report arrive in order. */
export interface IngestListener {
  readonly name: string;
  handle(event: IngestEvent): void | Promise<void>;
}

/** The outcome of one `upsert` / `delete` call. */
export type IngestOutcome =
  | { status: "stored" | "deleted" | "superseded"; reportId: string; issues: readonly ModelIssue[] }
  | { status: "held" | "filtered"; reportId: string; issues: readonly ModelIssue[]; reason?: string }
  | { status: "invalid"; error: ModelIssue; issues: readonly ModelIssue[] }
  | { status: "failed"; reportId: string; error: ReporterError; issues: readonly ModelIssue[] };

/** Options of {@link createIngest}. */
export interface IngestOptions {
  store: ReportStore;
  metrics?: ReporterMetrics;
  filters?: IngestFilters;
  clock?: Clock;
  logger?: Logger;
  listeners?: readonly IngestListener[];
  /** How long an update that empties a report is held; default 60 s. */
  holdMs?: number;
  /** Reports per store transaction; default 200. */
  maxBatch?: number;
  /** Store write attempts before a report is dropped; default 5. */
  writeAttempts?: number;
  /** First store retry delay; default 1000 ms. */
  writeBackoffMs?: number;
  /** Longest store retry delay, also while the store is unavailable; default 30 s. */
  writeMaxBackoffMs?: number;
}

/** The ingest pipeline. */
export interface Ingest {
  /** Processes an added or updated report object; resolves once stored (or held, filtered, rejected). */
  upsert(object: unknown, options?: { kind?: ReportKind }): Promise<IngestOutcome>;
  /** Processes a deleted report object (only its kind and metadata are read). */
  delete(object: unknown, options?: { kind?: ReportKind }): Promise<IngestOutcome>;
  /** Resolves when every accepted event is stored and every listener has handled it (holds excepted). */
  flush(): Promise<void>;
  /** Number of updates currently held. */
  held(): number;
  /** Set while writes wait for an unavailable store (the store is behind the cluster). */
  storeBehind(): StoreBehind | undefined;
  /** Cancels holds and flushes. */
  close(): Promise<void>;
}

function identity(object: unknown, kind: ReportKind | undefined): { id: string; kind: string } | undefined {
  if (typeof object !== "object" || object === null) return undefined;
  const o = object as { kind?: unknown; metadata?: { name?: unknown; namespace?: unknown } };
  const k = typeof o.kind === "string" ? o.kind : kind;
  const name = o.metadata?.name;
  if (typeof name !== "string" || !name || !k) return undefined;
  const cluster = k === "ClusterPolicyReport" || k === "ClusterReport";
  const namespace = !cluster && typeof o.metadata?.namespace === "string" ? o.metadata.namespace : "";
  return { id: reportId(namespace, name), kind: k };
}

/** Creates the ingest pipeline. */
export function createIngest(options: IngestOptions): Ingest {
  const clock = options.clock ?? createSystemClock({ unref: true });
  const logger = options.logger ?? silentLogger;
  const holdMs = options.holdMs ?? 60_000;
  const listeners = options.listeners ?? [];
  const filter = compileIngestFilters(options.filters, logger);
  const writer = createBatchWriter({
    store: options.store,
    clock,
    logger,
    ...(options.maxBatch !== undefined ? { maxBatch: options.maxBatch } : {}),
    ...(options.writeAttempts !== undefined ? { attempts: options.writeAttempts } : {}),
    ...(options.writeBackoffMs !== undefined ? { backoffMs: options.writeBackoffMs } : {}),
    ...(options.writeMaxBackoffMs !== undefined ? { maxBackoffMs: options.writeMaxBackoffMs } : {}),
    onError: (error) => options.metrics?.countStoreError(error.code),
  });
  /** Result count of every report applied so far (an empty update of a non-empty report is held). */
  const known = new Map<string, number>();
  const holds = new Map<string, { report: Report; cancel: () => void; issues: readonly ModelIssue[] }>();
  /** Per report, the tail of its event chain (serialises filter lookups and listener calls). */
  const chains = new Map<string, Promise<unknown>>();

  const inOrder = <T>(id: string, fn: () => Promise<T>): Promise<T> => {
    const next = (chains.get(id) ?? Promise.resolve()).then(fn, fn);
    chains.set(id, next);
    void next.finally(() => {
      if (chains.get(id) === next) chains.delete(id);
    });
    return next;
  };

  const notify = (event: IngestEvent) => {
    const id = event.type === "deleted" ? event.reportId : event.report.id;
    for (const listener of listeners) {
      void inOrder(`${listener.name}\u0000${id}`, async () => {
        try {
          await listener.handle(event);
        } catch (err) {
          logger.error({ listener: listener.name, report: id, err: String(err) }, "report listener failed");
        }
      });
    }
  };

  /** Applies a report now (metrics, listeners, write queued); the promise settles when it is stored. */
  const apply = (report: Report, issues: readonly ModelIssue[]): Promise<IngestOutcome> => {
    const previous = known.get(report.id);
    known.set(report.id, report.results.length);
    options.metrics?.upsertReport(report);
    notify({ type: previous === undefined ? "added" : "updated", report });
    return writer.enqueue({ type: "upsert", report }).then((written): IngestOutcome => {
      if (written.status === "failed")
        return { status: "failed", reportId: report.id, error: written.error, issues };
      return { status: written.status === "written" ? "stored" : "superseded", reportId: report.id, issues };
    });
  };

  /** Removes a report now; the promise settles when it is deleted from the store. */
  const remove = (id: string, issues: readonly ModelIssue[] = []): Promise<IngestOutcome> => {
    const hold = holds.get(id);
    if (hold) hold.cancel();
    holds.delete(id);
    known.delete(id);
    options.metrics?.deleteReport(id);
    notify({ type: "deleted", reportId: id });
    return writer.enqueue({ type: "delete", reportId: id }).then((written): IngestOutcome => {
      if (written.status === "failed")
        return { status: "failed", reportId: id, error: written.error, issues };
      return { status: written.status === "written" ? "deleted" : "superseded", reportId: id, issues };
    });
  };

  const countIssues = (issues: readonly ModelIssue[], id: string | undefined) => {
    if (issues.length === 0) return;
    for (const issue of issues) options.metrics?.countIssue(issue.code);
    logger.warn(
      { report: id, issues: issues.length, first: issues.slice(0, 5).map(formatIssue) },
      "report has problems; affected results were dropped or truncated",
    );
  };

  return {
    async upsert(object, opts = {}) {
      const normalized = normalizeReport(object, opts.kind ? { kind: opts.kind } : {});
      if (!normalized.ok) {
        options.metrics?.countIssue(normalized.error.code);
        logger.warn({ error: formatIssue(normalized.error) }, "report rejected");
        countIssues(normalized.issues, undefined);
        return { status: "invalid", error: normalized.error, issues: normalized.issues };
      }
      const { report, issues } = normalized;
      countIssues(issues, report.id);
      // Decide and apply inside the report's chain; wait for the store outside it.
      const decided = await inOrder(
        report.id,
        async (): Promise<IngestOutcome | { wait: Promise<IngestOutcome> }> => {
          const dropped = await filter(report);
          if (dropped) {
            logger.debug({ report: report.id, reason: dropped }, "report filtered out");
            if (known.has(report.id) || holds.has(report.id)) void remove(report.id);
            return { status: "filtered", reportId: report.id, issues, reason: dropped };
          }
          const previous = known.get(report.id);
          const held = holds.get(report.id);
          if (report.results.length === 0 && (held || (previous ?? 0) > 0)) {
            if (held) held.report = report;
            else {
              const cancel = clock.after(holdMs, () => {
                const entry = holds.get(report.id);
                if (!entry) return;
                holds.delete(report.id);
                void inOrder(report.id, async () => {
                  void apply(entry.report, entry.issues);
                });
              });
              holds.set(report.id, { report, cancel, issues });
            }
            return { status: "held", reportId: report.id, issues };
          }
          if (held) {
            held.cancel();
            holds.delete(report.id);
          }
          return { wait: apply(report, issues) };
        },
      );
      return "wait" in decided ? decided.wait : decided;
    },

    async delete(object, opts = {}) {
      const id = identity(object, opts.kind);
      if (!id) {
        const error = {
          code: "REPORT_INVALID" as const,
          path: "metadata",
          message: "deleted report without kind or name",
        };
        options.metrics?.countIssue(error.code);
        return { status: "invalid", error, issues: [] };
      }
      const decided = await inOrder(id.id, async () => ({ wait: remove(id.id) }));
      return decided.wait;
    },

    async flush() {
      for (;;) {
        await Promise.all([...chains.values()].map((c) => c.catch(() => undefined)));
        await writer.idle();
        if (chains.size === 0 && writer.pending() === 0) return;
      }
    },

    held: () => holds.size,

    storeBehind: () => writer.behind(),

    async close() {
      for (const hold of holds.values()) hold.cancel();
      holds.clear();
      await this.flush();
    },
  };
}
