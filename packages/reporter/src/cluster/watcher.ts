/**
 * `createReportWatcher`: one informer per report kind feeding a de-duplicating work queue keyed by
 * kind/namespace/name (as upstream); a worker takes the newest cached object and hands it to ingest
 * (`upsert`, or `delete` once it left the cache). Workers do not wait for the database: ingest keeps
 * each report's events in order and batches the writes, so a slow or full store never stalls the
 * watch, the metrics or the notifications.
 */
import {
  createInformer,
  createWorkQueue,
  type Informer,
  type InformerError,
  type KubeClient,
  type WorkQueue,
} from "@kyverno-ts/kube";
import type { Ingest } from "../ingest/ingest.js";
import type { Logger } from "../logger.js";
import type { ReporterMetrics } from "../metrics/metrics.js";
import type { ReportKindSpec } from "./kinds.js";

/** Options of {@link createReportWatcher}. */
export interface ReportWatcherOptions {
  client: KubeClient;
  ingest: Pick<Ingest, "upsert" | "delete">;
  kinds: readonly ReportKindSpec[];
  logger: Logger;
  metrics?: Pick<ReporterMetrics, "countWatchError">;
  /** Queue workers (`worker`, default 5). */
  workers?: number;
  /** Informer retry delay per attempt (default the informer's exponential backoff). */
  retryDelay?: (attempt: number) => number;
}

/** Watches the report kinds; create with {@link createReportWatcher}. */
export interface ReportWatcher {
  /** Starts the informers and workers; resolves once every kind is listed and every listed report was handed to ingest. */
  start(): Promise<void>;
  /** Queues every cached report again (a store rebuild); resolves when they were handed to ingest. */
  requeueAll(): Promise<void>;
  /** Resolves when no event is queued or being handed over. */
  drained(): Promise<void>;
  /** Number of cached report objects. */
  size(): number;
  /** Stops the informers, then lets the workers finish the queued keys. */
  stop(): Promise<void>;
}

type RawReport = {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string; resourceVersion?: string };
};

const SEP = "\u0000";

/** Creates the watcher; nothing happens before `start()`. */
export function createReportWatcher(options: ReportWatcherOptions): ReportWatcher {
  const { client, ingest, logger } = options;
  const informers: { spec: ReportKindSpec; informer: Informer<RawReport> }[] = options.kinds.map((spec) => ({
    spec,
    informer: createInformer<RawReport>({
      client,
      apiVersion: spec.apiVersion,
      kind: spec.kind,
      ...(options.retryDelay ? { delay: options.retryDelay } : {}),
    }),
  }));
  const queue: WorkQueue<string> = createWorkQueue<string>({
    name: "policy-report-watcher",
    maxRetries: 5,
    onDrop: ({ key, error }) =>
      logger.error({ key: key.split(SEP).join("/"), err: String(error) }, "report event dropped"),
  });
  /** Keys added and not yet taken by a worker, plus keys being handed over. */
  const pending = new Set<string>();
  let active = 0;
  let waiters: (() => void)[] = [];
  let workers: Promise<void> | undefined;

  const settle = (): void => {
    if (pending.size > 0 || active > 0) return;
    const ws = waiters;
    waiters = [];
    for (const w of ws) w();
  };
  const drained = (): Promise<void> =>
    pending.size === 0 && active === 0 ? Promise.resolve() : new Promise((resolve) => waiters.push(resolve));

  const keyOf = (index: number, object: RawReport): string | undefined => {
    const name = object.metadata?.name;
    if (!name) return undefined;
    return [index, object.metadata?.namespace ?? "", name].join(SEP);
  };
  const track = (key: string | undefined): void => {
    if (key === undefined || queue.isShuttingDown()) return;
    pending.add(key);
    queue.add(key);
  };

  informers.forEach(({ spec, informer }, index) => {
    const onObject = (object: RawReport) => track(keyOf(index, object));
    informer.on("add", onObject);
    informer.on("update", onObject);
    informer.on("delete", onObject);
    informer.on("error", (error: InformerError) => {
      if (error.source === "handler") {
        logger.error(
          { kind: spec.kind, event: error.event, err: String(error.error) },
          "report event handler failed",
        );
        return;
      }
      options.metrics?.countWatchError(spec.kind);
      const hint = error.failure.status === 404 ? " (is the CRD installed?)" : "";
      logger.warn(
        {
          kind: spec.kind,
          status: error.failure.status,
          reason: error.failure.reason,
          attempt: error.attempt,
          retryInMs: error.retryInMs,
          err: error.failure.message,
        },
        `${error.source} of ${spec.kind} failed${hint}; retrying`,
      );
    });
  });

  const reconcile = async (key: string): Promise<void> => {
    pending.delete(key);
    active++;
    try {
      const [index, namespace = "", name = ""] = key.split(SEP);
      const entry = informers[Number(index)];
      if (entry === undefined) return;
      const kind = entry.spec.kind;
      const object = entry.informer.get(namespace, name);
      const handed =
        object !== undefined
          ? ingest.upsert(object, { kind })
          : ingest.delete({ kind, metadata: { name, ...(namespace ? { namespace } : {}) } }, { kind });
      void handed.then(
        (outcome) => {
          if (outcome.status === "failed")
            logger.debug({ kind, namespace, name, code: outcome.error.code }, "report not stored");
        },
        (error: unknown) =>
          logger.error({ kind, namespace, name, err: String(error) }, "report ingest failed"),
      );
    } finally {
      active--;
      settle();
    }
  };

  return {
    async start() {
      workers ??= queue.process(Math.max(1, options.workers ?? 5), reconcile);
      await Promise.all(informers.map((i) => i.informer.start()));
      await drained();
    },
    async requeueAll() {
      informers.forEach(({ informer }, index) => {
        for (const object of informer.list()) track(keyOf(index, object));
      });
      await drained();
    },
    drained,
    size: () => informers.reduce((n, i) => n + i.informer.list().length, 0),
    async stop() {
      await Promise.all(informers.map((i) => i.informer.stop()));
      await queue.shutdown();
      await workers;
      pending.clear();
      settle();
    },
  };
}
