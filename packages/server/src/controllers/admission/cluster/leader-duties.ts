/**
 * What only the leader does, one thing at a time on a work queue: certificates (at the start of each
 * term and every 12 hours), webhook configurations (on every policy, configuration or CA change) and
 * policy statuses (after the webhooks they depend on are written). A term ends when leadership is
 * lost or released; the next leader starts from the cluster's state, not from this replica's memory.
 */
import { type Clock, createWorkQueue, exponentialRateLimiter, type WorkQueue } from "@kyverno-ts/kube";
import type { ClusterState } from "../../../cluster-state/cluster-state.js";
import type { Logger } from "../../../logger.js";
import type { CertRenewer } from "../../certificates/cert-renewer.js";
import type { StatusWriter } from "../../policy-status/policy-status.js";
import type { WebhookController } from "../../webhooks/webhook-controller.js";

/** Upstream's certificate check period. */
export const CERTIFICATE_CHECK_MS = 12 * 60 * 60 * 1000;

/** The `controller_name` of the leader's duty queue in the controller metrics. */
export const ADMISSION_LEADER_QUEUE = "admission-leader";

/** A unit of leader work. */
export type DutyKey = "certificates" | "webhooks" | `status/${string}`;

/** Options of `createLeaderDuties`. */
export interface LeaderDutiesOptions {
  renewer: CertRenewer;
  webhooks: WebhookController;
  status: StatusWriter;
  state: Pick<ClusterState, "policyKeys">;
  clock: Clock;
  logger: Logger;
  /** Certificate check period (default 12 h). */
  certificateCheckMs?: number;
  /** Retry period while some kinds cannot be resolved (default 30 s). */
  unresolvedRetryMs?: number;
  /** Told of each reconciliation and requeue of the duty queue (`kyverno_controller_*_total`). */
  metrics?: {
    reconcile(controller: string): void;
    requeue(controller: string, retries: number): void;
  };
}

/** The leader's work; see `createLeaderDuties`. */
export interface LeaderDuties {
  /** Starts a term: certificates and webhooks are reconciled at once, then on notice, until `signal` aborts. */
  start(signal: AbortSignal): void;
  /** Queues work (ignored outside a term). */
  notify(key: DutyKey): void;
  /** The revision of the webhook configurations written in this term (-1 before the first). */
  appliedRevision(): number;
  /** True while a term runs. */
  active(): boolean;
  /** Ends the current term; resolves when its in-flight work has stopped. */
  stop(): Promise<void>;
}

/** Creates the duties; the composition calls `start` when this replica becomes leader. */
export function createLeaderDuties(options: LeaderDutiesOptions): LeaderDuties {
  const { renewer, webhooks, status, state, clock, logger } = options;
  const checkMs = options.certificateCheckMs ?? CERTIFICATE_CHECK_MS;
  const retryMs = options.unresolvedRetryMs ?? 30_000;
  let term: { queue: WorkQueue<DutyKey>; done: Promise<void> } | undefined;
  let applied = -1;

  const reconcile = async (queue: WorkQueue<DutyKey>, key: DutyKey, signal: AbortSignal): Promise<void> => {
    if (key === "certificates") {
      const outcome = await renewer.reconcile(signal);
      queue.addAfter("certificates", checkMs);
      if (outcome.renewed.length > 0) queue.add("webhooks");
      return;
    }
    if (key === "webhooks") {
      const outcome = await webhooks.reconcile(signal);
      if (outcome.skipped) logger.debug({ reason: outcome.skipped }, "webhook configurations not computed");
      if (outcome.revision >= 0 && outcome.deferred.length === 0) {
        applied = Math.max(applied, outcome.revision);
        for (const policy of state.policyKeys()) queue.add(`status/${policy}`);
      }
      if (outcome.unresolved.length > 0) queue.addAfter("webhooks", retryMs);
      return;
    }
    await status.reconcile(key.slice("status/".length), signal);
  };

  let stopping: Promise<void> = Promise.resolve();
  /** Ends the term once; later calls wait for the same shutdown. */
  const stop = (): Promise<void> => {
    const current = term;
    term = undefined;
    if (current !== undefined) stopping = current.queue.shutdown({ drain: false }).then(() => current.done);
    return stopping;
  };

  return {
    start(signal) {
      if (term !== undefined || signal.aborted) return;
      applied = -1;
      const queue = createWorkQueue<DutyKey>({
        name: ADMISSION_LEADER_QUEUE,
        clock,
        maxRetries: Number.POSITIVE_INFINITY,
        rateLimiter: exponentialRateLimiter({ baseMs: 250, maxMs: 30_000 }),
        onReconcile: (e) => options.metrics?.reconcile(e.controller),
        onRequeue: (e) => {
          options.metrics?.requeue(e.controller, e.retries);
          logger.warn({ duty: e.key, retries: e.retries, err: e.error }, "leader duty failed");
        },
      });
      const done = queue.process(1, (key, ctx) => reconcile(queue, key, ctx.signal));
      term = { queue, done };
      queue.add("certificates");
      queue.add("webhooks");
      signal.addEventListener("abort", () => void stop(), { once: true });
      logger.info({}, "leading: managing certificates, webhook configurations and policy statuses");
    },
    notify(key) {
      term?.queue.add(key);
    },
    appliedRevision: () => applied,
    active: () => term !== undefined,
    stop,
  };
}
