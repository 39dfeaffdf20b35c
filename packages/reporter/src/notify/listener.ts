/**
 * The notifier as an ingest listener: maps normalised reports to the notifier's shape, skips events
 * while this replica is not the leader (with leader election), and retries an event whose seen-cache
 * claim failed (Redis unreachable) before giving it up with a log line and a metric.
 */
import type { Clock } from "@kyverno-ts/api";
import type { IngestEvent, IngestListener } from "../ingest/ingest.js";
import { createLogAggregator } from "../log-aggregator.js";
import type { Logger } from "../logger.js";
import type { Report, ResourceRef, Result } from "../model/types.js";
import type { NotifiableResult, ResourceRef as TargetResource } from "../targets/types.js";
import type { Notifier } from "./notifier.js";
import type { NotifierReport } from "./types.js";

function resourceOf(ref: ResourceRef | undefined): TargetResource | undefined {
  if (ref === undefined) return undefined;
  return {
    apiVersion: ref.apiVersion,
    kind: ref.kind,
    name: ref.name,
    ...(ref.namespace ? { namespace: ref.namespace } : {}),
    ...(ref.uid ? { uid: ref.uid } : {}),
  };
}

function notifiable(result: Result): NotifiableResult {
  const resource = resourceOf(result.resource);
  return {
    id: result.id,
    policy: result.policy,
    ...(result.rule ? { rule: result.rule } : {}),
    result: result.status,
    message: result.message,
    ...(result.severity ? { severity: result.severity } : {}),
    ...(result.category ? { category: result.category } : {}),
    ...(result.source ? { source: result.source } : {}),
    scored: result.scored,
    ...(result.timestamp > 0 ? { timestamp: result.timestamp * 1000 } : {}),
    ...(resource ? { resource } : {}),
    properties: result.properties,
  };
}

/** A normalised report as the notifier takes it (timestamps in epoch milliseconds). */
export function toNotifierReport(report: Report): NotifierReport {
  const scope = resourceOf(report.scope);
  return {
    id: report.id,
    name: report.name,
    ...(report.namespace ? { namespace: report.namespace } : {}),
    labels: report.labels,
    ...(scope ? { scope } : {}),
    ...(report.created > 0 ? { creationTimestamp: report.created } : {}),
    results: report.results.map(notifiable),
  };
}

/** Options of {@link createNotifierListener}. */
export interface NotifierListenerOptions {
  notifier: Pick<Notifier, "handle">;
  clock: Clock;
  logger: Logger;
  /** False while another replica leads: events are skipped (default always true). */
  isActive?: () => boolean;
  /** Attempts per event when the seen cache fails (default 3). */
  attempts?: number;
  /** First retry delay, doubled per attempt (default 500 ms). */
  backoffMs?: number;
  /** Called when an event is given up. */
  onGiveUp?: (reportId: string, error: unknown) => void;
}

/** Creates the listener to pass to `createIngest({ listeners })`. */
export function createNotifierListener(options: NotifierListenerOptions): IngestListener {
  const attempts = Math.max(1, options.attempts ?? 3);
  const backoffMs = options.backoffMs ?? 500;
  // An unreachable cache (Redis) fails every event: one line per kind and 30 s, not three per event.
  const log = createLogAggregator({ logger: options.logger, clock: options.clock });
  const wait = (ms: number) =>
    new Promise<void>((resolve) => {
      options.clock.after(ms, resolve);
    });
  return {
    name: "notifier",
    async handle(event: IngestEvent) {
      if (options.isActive && !options.isActive()) return;
      const id = event.type === "deleted" ? event.reportId : event.report.id;
      const mapped =
        event.type === "deleted"
          ? { type: "deleted" as const, report: { id } }
          : { type: event.type, report: toNotifierReport(event.report) };
      for (let attempt = 1; ; attempt++) {
        try {
          await options.notifier.handle(mapped);
          return;
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          if (attempt >= attempts) {
            log.log({
              key: "given-up",
              level: "error",
              fields: { report: id, attempts, err: message },
              message: "notification of a report event given up",
              summary: (n, s) => `gave up notifying ${n} report events in the last ${s} s (${message})`,
            });
            options.onGiveUp?.(id, error);
            return;
          }
          log.log({
            key: "retry",
            level: "warn",
            fields: { report: id, attempt, err: message },
            message: "seen-results cache failed; retrying the event",
            summary: (n, s) =>
              `seen-results cache failed ${n} more times in the last ${s} s; events retried (${message})`,
          });
          await wait(backoffMs * 2 ** (attempt - 1));
        }
      }
    },
  };
}
