/**
 * New-result detection and dispatch: for each report event, find the results no one has notified yet
 * (and, opt-in, the failures that now pass) and hand them to every target's own delivery queue.
 */
import type { Clock } from "@kyverno-ts/api";
import { createLogAggregator } from "../log-aggregator.js";
import type { Logger } from "../logger.js";
import {
  createDeliveryQueue,
  type DeliveryFailure,
  type NotifiableResult,
  type ReportRef,
  type ResultStatus,
  type TargetBinding,
} from "../targets/index.js";
import type { NotifierReport, NotifyOutcome, OpenFailure, ReportEvent, SeenCache } from "./types.js";

/** Statuses that are notified as new results. */
export const NOTIFIED_STATUSES: ReadonlySet<ResultStatus> = new Set(["fail", "warn", "error"]);

/** Options of `createNotifier`. */
export interface NotifierOptions {
  targets: readonly TargetBinding[];
  cache: SeenCache;
  /** Start-up time for `skipExistingOnStartup`, epoch ms (default: the clock at creation). */
  startedAt?: number;
  /** Pending sends per target before new ones are dropped (default 1000). */
  queueCapacity?: number;
  /**
   * Sends only while this returns true; detection still runs and fills the cache. For a replica with its
   * own (memory) cache under leader election: it keeps up while following, so taking over sends nothing twice.
   */
  active?: () => boolean;
}

/** Dependencies of `createNotifier`. */
export interface NotifierDeps {
  clock: Clock;
  logger: Logger;
  /** Metric hook for dropped sends (`QUEUE_FULL`); per-attempt failures come from the targets' own hook. */
  onError?: (failure: DeliveryFailure) => void;
}

/** The notifier: call `handle` for every report event, in order per report. */
export interface Notifier {
  /**
   * Detects new and resolved results and enqueues them; resolves before delivery happens. Rejects (having
   * sent nothing) when the cache cannot claim the results, so the caller may retry the event.
   */
  handle(event: ReportEvent): Promise<NotifyOutcome>;
  /** Resolves when every target's queue is empty. */
  idle(): Promise<void>;
  /** Stops accepting sends and flushes the queues. */
  close(): Promise<void>;
}

/**
 * The identity of a finding across its status changes: resource (UID, else apiVersion/kind/namespace/name),
 * source, policy and rule. A failing and a passing result with the same key are the same check.
 */
export function resolutionKey(result: NotifiableResult): string {
  const r = result.resource;
  const resource = r?.uid || [r?.apiVersion, r?.kind, r?.namespace, r?.name].map((p) => p ?? "").join("/");
  return [resource, result.source ?? "", result.policy, result.rule ?? ""].join("|");
}

/**
 * Creates a notifier over `options.targets`, each behind its own bounded queue, so a slow or failing
 * target delays neither the others nor `handle`.
 *
 * A result is new when its ID was not seen before in its report (the cache decides, atomically across
 * replicas) and its status is fail, warn or error. Targets with `skipExistingOnStartup` do not get results
 * that existed before start-up: those with a timestamp before it, and all results of a report created before
 * it when this instance sees the report for the first time. With `sendResolved`, a target also gets the
 * passing result that replaces a failure the cache still holds open.
 */
export function createNotifier(options: NotifierOptions, deps: NotifierDeps): Notifier {
  const startedAt = options.startedAt ?? deps.clock.now();
  const cacheLog = createLogAggregator({ logger: deps.logger, clock: deps.clock });
  const capacity = options.queueCapacity ?? 1000;
  const routes = options.targets.map((binding) => ({
    binding,
    queue: createDeliveryQueue(binding.target, { capacity }, deps),
  }));
  const trackResolved = options.targets.some((b) => b.sendResolved === true);
  const knownReports = new Set<string>();
  const cache = options.cache;

  /**
   * Opens markers for new failures, refreshes those still failing, and claims the markers of failures that
   * now pass. A cache error here is logged and costs only the resolved notifications of this event: the new
   * results, already claimed, are still sent.
   */
  const findResolved = async (
    reportId: string,
    results: readonly NotifiableResult[],
    failing: readonly NotifiableResult[],
    fresh: readonly NotifiableResult[],
    claimed: ReadonlySet<string>,
    existed: (r: NotifiableResult) => boolean,
  ): Promise<{ result: NotifiableResult; failure: OpenFailure }[]> => {
    try {
      const opened = new Map<string, OpenFailure>();
      for (const r of fresh) opened.set(resolutionKey(r), { status: r.result, existing: existed(r) });
      const stillFailing = failing.filter((r) => !claimed.has(r.id)).map(resolutionKey);
      await cache.trackFailures(reportId, opened, stillFailing);
      const failingKeys = new Set(failing.map(resolutionKey));
      const passing = results.filter(
        (r) => r.result === "pass" && claimed.has(r.id) && !failingKeys.has(resolutionKey(r)),
      );
      const removed = await cache.resolve(reportId, passing.map(resolutionKey));
      return passing.flatMap((r) => {
        const failure = removed.get(resolutionKey(r));
        return failure === undefined ? [] : [{ result: r, failure }];
      });
    } catch (error) {
      const err = error instanceof Error ? error.message : String(error);
      cacheLog.log({
        key: "tracking",
        level: "error",
        fields: { report: reportId, err },
        message: "resolved-result tracking failed; resolved notifications of this event are skipped",
        summary: (n, s) =>
          `resolved-result tracking failed for ${n} more report events in the last ${s} s (${err})`,
      });
      return [];
    }
  };

  const handleReport = async (report: NotifierReport): Promise<NotifyOutcome> => {
    const firstSight = !knownReports.has(report.id);
    const reportExisted =
      firstSight && report.creationTimestamp !== undefined && report.creationTimestamp < startedAt;
    const existed = (r: NotifiableResult): boolean =>
      reportExisted || (r.timestamp !== undefined && r.timestamp < startedAt);

    const byId = new Map<string, NotifiableResult>();
    for (const r of report.results) if (!byId.has(r.id)) byId.set(r.id, r);
    const results = [...byId.values()];
    const claimed = await cache.claim(report.id, [...byId.keys()]);
    // Only once claimed: an event that failed here is retried as a first sight.
    knownReports.add(report.id);
    const failing = results.filter((r) => NOTIFIED_STATUSES.has(r.result));
    const fresh = failing.filter((r) => claimed.has(r.id));

    const resolved = trackResolved
      ? await findResolved(report.id, results, failing, fresh, claimed, existed)
      : [];

    if (options.active !== undefined && !options.active())
      return { newResults: fresh.length, resolved: resolved.length };
    const ref: ReportRef = {
      id: report.id,
      name: report.name,
      ...(report.namespace === undefined ? {} : { namespace: report.namespace }),
      ...(report.labels === undefined ? {} : { labels: report.labels }),
      ...(report.scope === undefined ? {} : { scope: report.scope }),
    };
    for (const { binding, queue } of routes) {
      const skip = binding.skipExistingOnStartup;
      const news = skip ? fresh.filter((r) => !existed(r)) : fresh;
      if (news.length > 0) void queue.sendBatch(news, { event: "new", report: ref });
      if (binding.sendResolved !== true) continue;
      const rs = resolved.filter((x) => !(skip && x.failure.existing));
      if (rs.length === 0) continue;
      const previousStatus: Record<string, ResultStatus> = {};
      for (const x of rs) previousStatus[x.result.id] = x.failure.status;
      void queue.sendBatch(
        rs.map((x) => x.result),
        { event: "resolved", report: ref, previousStatus },
      );
    }
    return { newResults: fresh.length, resolved: resolved.length };
  };

  return {
    async handle(event) {
      if (event.type === "deleted") {
        knownReports.delete(event.report.id);
        await cache.forget(event.report.id);
        return { newResults: 0, resolved: 0 };
      }
      return handleReport(event.report);
    },
    idle: async () => {
      await Promise.all(routes.map((r) => r.queue.idle()));
    },
    close: async () => {
      await Promise.all(routes.map((r) => r.queue.close()));
    },
  };
}
