/**
 * What one evaluation pool holds (see pool.ts): its settings, its workers (slots), the jobs waiting
 * and running, the policies every worker is sent, and its counters. The pool's parts (workers.ts,
 * assign.ts, submit.ts) are module functions over this one state.
 */
import type { Worker } from "node:worker_threads";
import type { CelPolicy, CelPolicyException, Policy, PolicyException } from "@kyverno-ts/api";
import type { ServerClock } from "../clock.js";
import type { CelJob, CelJobResult } from "../controllers/admission/cel-step.js";
import type { ReviewParse } from "../controllers/admission/review.js";
import type { StepJob, StepResult } from "../controllers/admission/step.js";
import type { Logger } from "../logger.js";
import type { FairQueue } from "./fair-queue.js";
import type { ParseJob, WorkerSettings } from "./protocol.js";

/** Why a job was not evaluated: its deadline passed while it waited, or its worker overran or died. */
export class EvaluationAbandoned extends Error {
  override readonly name = "EvaluationAbandoned";
}

/** A job of any kind, as the queue holds it. */
export type WorkerJob =
  | { kind: "step"; job: StepJob }
  | { kind: "cel"; job: CelJob }
  | { kind: "parse"; job: ParseJob };

/** What a worker answers to a job of any kind. */
export type JobResult = StepResult | CelJobResult | ReviewParse;

/** A job submitted to the pool, waiting in the queue or running in a slot. */
export interface Pending {
  readonly id: number;
  readonly job: WorkerJob;
  readonly tenant: string;
  readonly resolve: (result: JobResult) => void;
  readonly reject: (error: EvaluationAbandoned) => void;
  /** Monotonic time the job was queued: its time left shrinks while it waits. */
  readonly queuedAt: number;
  cancelTimer: () => void;
  slot: Slot | undefined;
}

/** One worker thread and the job it runs. */
export interface Slot {
  worker: Worker;
  job: Pending | undefined;
  /**
   * Whether the worker has loaded and compiled the policies it was sent: jobs go to ready workers
   * only (a worker that never gets ready is not replaced forever).
   */
  ready: boolean;
  /** Cancels the stop of this idle worker (set while it is idle). */
  retire: (() => void) | undefined;
}

/** The state of one pool; `createEvaluationPool` builds it from its options. */
export interface PoolState {
  readonly clock: ServerClock;
  readonly logger: Logger;
  readonly settings: WorkerSettings;
  /** Most workers. */
  readonly size: number;
  /** Workers started at once, and kept when idle. */
  readonly prestart: number;
  readonly idleMs: number;
  readonly graceMs: number;
  readonly workerUrl: URL;
  readonly execArgv: string[] | undefined;
  /** The most workers one tenant runs on at once. */
  readonly tenantCap: number;
  /** The policies and exceptions as sent to the workers, replayed to each new one. */
  readonly policies: Map<string, Policy>;
  exceptions: PolicyException[];
  readonly celPolicies: Map<string, CelPolicy>;
  readonly celExceptions: Map<string, CelPolicyException>;
  readonly queue: FairQueue<Pending>;
  readonly runningPerTenant: Map<string, number>;
  readonly slots: Slot[];
  nextId: number;
  replaced: number;
  /** Workers started, of every cause. */
  started: number;
  abandoned: number;
  closed: boolean;
  /** Workers that died before they got ready, in a row. */
  failedStarts: number;
  /** Set once workers failed to start `MAX_FAILED_STARTS` times in a row: no more are started. */
  startsFailed: boolean;
  /** Whether how the workers are scheduled was logged (once, by the first worker to get ready). */
  schedulingLogged: boolean;
}

/** The job leaves its slot: its timer stops and its tenant runs one job less. */
export function release(s: PoolState, slot: Slot, pending: Pending): void {
  pending.cancelTimer();
  slot.job = undefined;
  pending.slot = undefined;
  const n = (s.runningPerTenant.get(pending.tenant) ?? 1) - 1;
  if (n <= 0) s.runningPerTenant.delete(pending.tenant);
  else s.runningPerTenant.set(pending.tenant, n);
}

/** The job is answered without evaluation (`EvaluationAbandoned`). */
export function giveUp(s: PoolState, pending: Pending, reason: string): void {
  s.abandoned++;
  pending.reject(new EvaluationAbandoned(reason));
}
