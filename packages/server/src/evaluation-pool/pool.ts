/**
 * The evaluation pool: a few worker threads that evaluate admission steps, so the event loop that
 * accepts connections and answers probes never runs a policy. Workers start when a job needs one
 * (each is a V8 isolate with its own heap and its own copy of the compiled policies, ~35 MiB, while
 * most requests are answered inline and never need a worker), up to `size`; `prestart` starts some
 * at once, and a worker idle for `idleMs` stops (down to `prestart`). Jobs wait in a fair queue (one lane
 * per namespace, served round robin; one namespace runs on at most all workers but one), a job whose
 * deadline passes while it waits is answered at once, and a worker still busy `graceMs` after its
 * job's deadline is terminated and replaced (the engine stops a rule at the deadline by itself, so
 * this only happens to a worker that does not answer). Either way the caller gets
 * `EvaluationAbandoned` and answers per failure policy within the webhook timeout. The parts are
 * module functions over one `PoolState` (pool-state.ts): the workers' lifecycle (workers.ts), handing
 * queued jobs to them (assign.ts), a job's queueing and deadline (submit.ts).
 */
import type { CelPolicy, CelPolicyException, Policy, PolicyException } from "@kyverno-ts/api";
import type { ServerClock } from "../clock.js";
import type { CelJob, CelJobResult } from "../controllers/admission/cel-step.js";
import type { ReviewParse } from "../controllers/admission/review.js";
import type { StepJob, StepResult } from "../controllers/admission/step.js";
import type { Logger } from "../logger.js";
import { createFairQueue } from "./fair-queue.js";
import { giveUp, type PoolState, release } from "./pool-state.js";
import type { ToWorker, WorkerSettings } from "./protocol.js";
import { submit } from "./submit.js";
import { defaultWorker, spawn } from "./workers.js";

/** Options of `createEvaluationPool`. */
export interface EvaluationPoolOptions {
  /** Most worker threads (at least 1). */
  size: number;
  /**
   * Workers started at once (default 0: each starts when a job finds no idle worker, and the job
   * waits for it to compile the policies; it counts against the job's deadline).
   */
  prestart?: number;
  /** How long a worker stays without a job before it stops, down to `prestart` workers (default 60 s). */
  idleMs?: number;
  clock: ServerClock;
  logger: Logger;
  settings: WorkerSettings;
  /** How long a worker may stay busy past its job's deadline before it is replaced (default 250 ms). */
  graceMs?: number;
  /** The worker's module (default: `worker.js` beside this module, as built). */
  workerUrl?: URL;
  /** Extra `execArgv` of the workers (tests run the TypeScript sources). */
  execArgv?: string[];
}

/** Counters of a pool, for tests and logs. */
export interface PoolStats {
  workers: number;
  running: number;
  queued: number;
  /** Workers that loaded and compiled the policies, ready for jobs. */
  ready: number;
  /** Workers terminated for overrunning a deadline, or replaced after they died. */
  replaced: number;
  /** Workers started since the pool was created (prestarted ones, replacements and those a job wanted). */
  started: number;
  /** Jobs answered without evaluation (deadline passed while queued, or worker replaced). */
  abandoned: number;
}

/** The pool; see `createEvaluationPool`. */
export interface EvaluationPool {
  /** Evaluates a step in a worker; rejects with `EvaluationAbandoned` when it cannot be in time. */
  evaluate(job: StepJob, tenant: string): Promise<StepResult>;
  /** Evaluates a CEL webhook's policies in a worker, under the same queue and deadlines. */
  evaluateCel(job: CelJob, tenant: string): Promise<CelJobResult>;
  /** Parses a large review's text into its shell in a worker (see review-shell.ts), likewise. */
  parseReview(text: string, remainingMs: number): Promise<ReviewParse>;
  /** Policy changes, forwarded to every worker (and replayed to replacements). */
  setPolicy(key: string, policy: Policy): void;
  deletePolicy(key: string): void;
  setExceptions(exceptions: readonly PolicyException[]): void;
  /** CEL policy and CEL PolicyException changes, forwarded likewise. */
  setCelPolicy(key: string, policy: CelPolicy): void;
  deleteCelPolicy(key: string): void;
  setCelException(key: string, exception: CelPolicyException): void;
  deleteCelException(key: string): void;
  stats(): PoolStats;
  /** Terminates the workers; jobs still waiting or running are abandoned. */
  close(): Promise<void>;
}

/** The fair queue's lane of the parse jobs (their namespace is not known before they are parsed). */
const PARSE_TENANT = "(review bodies)";
const DEFAULT_GRACE_MS = 250;
const DEFAULT_IDLE_MS = 60_000;

/** The state of a new pool, with no worker yet. */
function poolState(options: EvaluationPoolOptions): PoolState {
  const size = Math.max(1, Math.floor(options.size));
  const { url: workerUrl, execArgv } = options.workerUrl
    ? { url: options.workerUrl, execArgv: options.execArgv }
    : defaultWorker(options.execArgv);
  return {
    clock: options.clock,
    logger: options.logger,
    settings: options.settings,
    size,
    prestart: Math.min(size, Math.max(0, Math.floor(options.prestart ?? 0))),
    idleMs: options.idleMs ?? DEFAULT_IDLE_MS,
    graceMs: options.graceMs ?? DEFAULT_GRACE_MS,
    workerUrl,
    execArgv,
    // One namespace may occupy every worker but one, so another namespace always finds a free worker.
    tenantCap: size === 1 ? 1 : size - 1,
    policies: new Map(),
    exceptions: [],
    celPolicies: new Map(),
    celExceptions: new Map(),
    queue: createFairQueue(),
    runningPerTenant: new Map(),
    slots: [],
    nextId: 1,
    replaced: 0,
    started: 0,
    abandoned: 0,
    closed: false,
    failedStarts: 0,
    startsFailed: false,
    schedulingLogged: false,
  };
}

/** Starts `prestart` workers, each compiling the policies it is sent; more start on demand. */
export function createEvaluationPool(options: EvaluationPoolOptions): EvaluationPool {
  const s = poolState(options);
  const broadcast = (message: ToWorker): void => {
    for (const slot of s.slots) slot.worker.postMessage(message);
  };
  for (let i = 0; i < s.prestart; i++) spawn(s);
  return {
    evaluate: (job, tenant) => submit(s, { kind: "step", job }, tenant) as Promise<StepResult>,
    evaluateCel: (job, tenant) => submit(s, { kind: "cel", job }, tenant) as Promise<CelJobResult>,
    parseReview: (text, remainingMs) =>
      submit(
        s,
        { kind: "parse", job: { text, remainingMs, policies: [] } },
        PARSE_TENANT,
      ) as Promise<ReviewParse>,
    setPolicy(key, policy) {
      s.policies.set(key, policy);
      broadcast({ type: "setPolicy", policy });
    },
    deletePolicy(key) {
      if (!s.policies.delete(key)) return;
      broadcast({ type: "deletePolicy", key });
    },
    setExceptions(list) {
      s.exceptions = [...list];
      broadcast({ type: "setExceptions", exceptions: s.exceptions });
    },
    setCelPolicy(key, policy) {
      s.celPolicies.set(key, policy);
      broadcast({ type: "setCelPolicy", policy });
    },
    deleteCelPolicy(key) {
      if (!s.celPolicies.delete(key)) return;
      broadcast({ type: "deleteCelPolicy", key });
    },
    setCelException(key, exception) {
      s.celExceptions.set(key, exception);
      broadcast({ type: "setCelException", exception });
    },
    deleteCelException(key) {
      if (!s.celExceptions.delete(key)) return;
      broadcast({ type: "deleteCelException", key });
    },
    stats: () => stats(s),
    close: () => close(s),
  };
}

function stats(s: PoolState): PoolStats {
  let running = 0;
  let ready = 0;
  for (const slot of s.slots) {
    if (slot.job !== undefined) running++;
    if (slot.ready) ready++;
  }
  return {
    workers: s.slots.length,
    ready,
    running,
    queued: s.queue.size,
    replaced: s.replaced,
    started: s.started,
    abandoned: s.abandoned,
  };
}

/** Terminates the workers; jobs still waiting or running are abandoned. */
async function close(s: PoolState): Promise<void> {
  s.closed = true;
  const all = s.slots.splice(0);
  for (const slot of all) slot.retire?.();
  for (let next = s.queue.take(); next !== undefined; next = s.queue.take()) {
    next.item.cancelTimer();
    giveUp(s, next.item, "the evaluation pool is closed");
  }
  for (const slot of all) {
    if (slot.job !== undefined) {
      const pending = slot.job;
      release(s, slot, pending);
      giveUp(s, pending, "the evaluation pool is closed");
    }
  }
  await Promise.all(all.map((slot) => slot.worker.terminate()));
}
