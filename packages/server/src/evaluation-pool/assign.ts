/**
 * Hands queued jobs to the pool's free, ready workers: in the fair queue's order (one lane per
 * namespace, served round robin), a tenant at its cap (every worker but one) skipped, each job sent
 * with the time it has left after waiting.
 */
import type { PoolState } from "./pool-state.js";
import type { ToWorker } from "./protocol.js";

/** The message type of each job kind. */
const MESSAGE_TYPES = { step: "evaluate", cel: "evaluateCel", parse: "parseReview" } as const;

/** Sends queued jobs to the free, ready workers until either runs out. */
export function assignJobs(s: PoolState): void {
  const eligible = (tenant: string): boolean => (s.runningPerTenant.get(tenant) ?? 0) < s.tenantCap;
  for (const slot of s.slots) {
    if (slot.job !== undefined || !slot.ready) continue;
    const next = s.queue.take(eligible);
    if (next === undefined) break;
    const pending = next.item;
    const remainingMs = pending.job.job.remainingMs - (s.clock.monotonic() - pending.queuedAt);
    slot.job = pending;
    slot.retire?.();
    slot.retire = undefined;
    pending.slot = slot;
    s.runningPerTenant.set(pending.tenant, (s.runningPerTenant.get(pending.tenant) ?? 0) + 1);
    slot.worker.postMessage({
      type: MESSAGE_TYPES[pending.job.kind],
      id: pending.id,
      job: { ...pending.job.job, remainingMs },
    } as ToWorker);
  }
}
