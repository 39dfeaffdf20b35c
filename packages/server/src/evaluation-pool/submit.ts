/**
 * A job's way through the pool: queued in its tenant's lane, sent to a worker when one is free, and
 * bounded by its deadline — a job still waiting then is answered at once, a running one gets
 * `graceMs` more before its worker is replaced (`EvaluationAbandoned` either way).
 */
import {
  EvaluationAbandoned,
  giveUp,
  type JobResult,
  type Pending,
  type PoolState,
  type WorkerJob,
} from "./pool-state.js";
import { dispatch, overrun } from "./workers.js";

/** Queues a job for `tenant`; rejects with `EvaluationAbandoned` when it cannot be evaluated in time. */
export function submit(s: PoolState, work: WorkerJob, tenant: string): Promise<JobResult> {
  if (s.closed || (s.startsFailed && s.slots.length === 0))
    return Promise.reject(new EvaluationAbandoned("no evaluation worker runs"));
  return new Promise<JobResult>((resolve, reject) => {
    const pending: Pending = {
      id: s.nextId++,
      job: work,
      tenant,
      resolve,
      reject,
      queuedAt: s.clock.monotonic(),
      cancelTimer: () => {},
      slot: undefined,
    };
    pending.cancelTimer = s.clock.after(Math.max(0, work.job.remainingMs), () => atDeadline(s, pending));
    s.queue.push(tenant, pending);
    dispatch(s);
  });
}

/** At the deadline: a waiting job is answered at once; a running one gets `graceMs` more. */
function atDeadline(s: PoolState, pending: Pending): void {
  if (pending.slot === undefined) {
    if (s.queue.remove(pending.tenant, pending))
      giveUp(s, pending, "the deadline passed while the request waited for a worker");
    return;
  }
  const slot = pending.slot;
  pending.cancelTimer = s.clock.after(s.graceMs, () => {
    if (slot.job === pending) overrun(s, slot, pending);
  });
}
