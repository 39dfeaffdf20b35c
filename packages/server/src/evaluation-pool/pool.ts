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
 * `EvaluationAbandoned` and answers per failure policy within the webhook timeout.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { CelPolicy, CelPolicyException, Policy, PolicyException } from "@kyverno-ts/api";
import type { ServerClock } from "../clock.js";
import type { CelJob, CelJobResult } from "../controllers/admission/cel-step.js";
import type { ReviewParse } from "../controllers/admission/review.js";
import type { StepJob, StepResult } from "../controllers/admission/step.js";
import type { Logger } from "../logger.js";
import { createFairQueue } from "./fair-queue.js";
import type { FromWorker, ParseJob, ToWorker, WorkerSettings } from "./protocol.js";

/** Why a job was not evaluated: its deadline passed while it waited, or its worker overran or died. */
class EvaluationAbandoned extends Error {
  override readonly name = "EvaluationAbandoned";
}

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

/** A job of any kind, as the queue holds it. */
type WorkerJob =
  | { kind: "step"; job: StepJob }
  | { kind: "cel"; job: CelJob }
  | { kind: "parse"; job: ParseJob };

/** The message type of each job kind. */
const MESSAGE_TYPES = { step: "evaluate", cel: "evaluateCel", parse: "parseReview" } as const;
/** The fair queue's lane of the parse jobs (their namespace is not known before they are parsed). */
const PARSE_TENANT = "(review bodies)";
type JobResult = StepResult | CelJobResult | ReviewParse;

interface Pending {
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

interface Slot {
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

const DEFAULT_GRACE_MS = 250;
const DEFAULT_IDLE_MS = 60_000;
/** Workers that die before starting, in a row, after which no more are started. */
const MAX_FAILED_STARTS = 3;

/**
 * The built worker module beside this one; when this module runs from its TypeScript sources (tests,
 * `tsx`-style runs) there is no `worker.js`, and the source entry is started with type transforms.
 */
function defaultWorker(execArgv: string[] | undefined): { url: URL; execArgv: string[] | undefined } {
  const built = new URL("./worker.js", import.meta.url);
  if (existsSync(fileURLToPath(built))) return { url: built, execArgv };
  return {
    url: new URL("./testing/source-worker.ts", import.meta.url),
    execArgv: [...(execArgv ?? []), "--experimental-transform-types", "--no-warnings"],
  };
}

/** Starts `size` workers, each compiling the policies it is sent. */
export function createEvaluationPool(options: EvaluationPoolOptions): EvaluationPool {
  const { clock, logger, settings } = options;
  const size = Math.max(1, Math.floor(options.size));
  const prestart = Math.min(size, Math.max(0, Math.floor(options.prestart ?? 0)));
  const idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
  const graceMs = options.graceMs ?? DEFAULT_GRACE_MS;
  const { url: workerUrl, execArgv } = options.workerUrl
    ? { url: options.workerUrl, execArgv: options.execArgv }
    : defaultWorker(options.execArgv);
  const policies = new Map<string, Policy>();
  let exceptions: PolicyException[] = [];
  const celPolicies = new Map<string, CelPolicy>();
  const celExceptions = new Map<string, CelPolicyException>();
  const queue = createFairQueue<Pending>();
  const runningPerTenant = new Map<string, number>();
  // One namespace may occupy every worker but one, so another namespace always finds a free worker.
  const tenantCap = size === 1 ? 1 : size - 1;
  const slots: Slot[] = [];
  let nextId = 1;
  let replaced = 0;
  let abandoned = 0;
  let closed = false;
  let failedStarts = 0;
  /** Set once workers failed to start `MAX_FAILED_STARTS` times in a row: no more are started. */
  let startsFailed = false;

  const broadcast = (message: ToWorker): void => {
    for (const slot of slots) slot.worker.postMessage(message);
  };

  function spawn(): Slot {
    const worker = new Worker(workerUrl, {
      workerData: settings,
      ...(execArgv ? { execArgv } : {}),
    });
    const slot: Slot = { worker, job: undefined, ready: false, retire: undefined };
    // The current policies and exceptions, so a replacement worker starts where the others are.
    for (const policy of policies.values())
      worker.postMessage({ type: "setPolicy", policy } satisfies ToWorker);
    if (exceptions.length > 0) worker.postMessage({ type: "setExceptions", exceptions } satisfies ToWorker);
    for (const exception of celExceptions.values())
      worker.postMessage({ type: "setCelException", exception } satisfies ToWorker);
    for (const policy of celPolicies.values())
      worker.postMessage({ type: "setCelPolicy", policy } satisfies ToWorker);
    worker.postMessage({ type: "ping" } satisfies ToWorker);
    worker.on("message", (message: FromWorker) => {
      if (message.type === "ready") {
        slot.ready = true;
        failedStarts = 0;
        dispatch();
        if (slot.job === undefined) idle(slot);
        return;
      }
      const pending = slot.job;
      if (pending === undefined || pending.id !== message.id) return;
      release(slot, pending);
      if (message.type === "result" || message.type === "celResult" || message.type === "parsed")
        pending.resolve(message.result);
      else {
        logger.error({ reason: message.message }, "admission evaluation failed in a worker");
        giveUp(pending, `evaluation failed: ${message.message}`);
      }
      dispatch();
      if (slot.job === undefined) idle(slot);
    });
    worker.on("error", (error) => {
      logger.error({ err: error }, "evaluation worker failed");
    });
    worker.on("exit", () => {
      const at = slots.indexOf(slot);
      if (at < 0) return; // terminated on purpose: already replaced
      slots.splice(at, 1);
      const pending = slot.job;
      if (pending !== undefined) {
        release(slot, pending);
        giveUp(pending, "the evaluation worker exited");
      }
      if (!slot.ready) failedStarts++;
      if (failedStarts >= MAX_FAILED_STARTS) {
        startsFailed = true;
        logger.error(
          { url: workerUrl.href },
          "evaluation workers do not start; requests are answered per failure policy",
        );
        if (slots.length === 0)
          for (let n = queue.take(); n !== undefined; n = queue.take())
            giveUp(n.item, "no evaluation worker runs");
        return;
      }
      if (!closed) {
        replaced++;
        slots.push(spawn());
        dispatch();
      }
    });
    worker.unref();
    return slot;
  }

  /**
   * An idle worker stops after `idleMs` unless a job comes first, down to `prestart` workers; while
   * another worker is busy it stays as the spare (see `startWanted`) and looks again later.
   */
  function idle(slot: Slot): void {
    slot.retire?.();
    slot.retire = clock.after(idleMs, () => {
      slot.retire = undefined;
      const at = slots.indexOf(slot);
      if (closed || slot.job !== undefined || at < 0 || slots.length <= prestart) return;
      const busy = slots.some((other) => other.job !== undefined);
      const spare = slots.some((other) => other !== slot && other.ready && other.job === undefined);
      if (busy && !spare) return idle(slot);
      slots.splice(at, 1);
      void slot.worker.terminate();
    });
  }

  function release(slot: Slot, pending: Pending): void {
    pending.cancelTimer();
    slot.job = undefined;
    pending.slot = undefined;
    const n = (runningPerTenant.get(pending.tenant) ?? 1) - 1;
    if (n <= 0) runningPerTenant.delete(pending.tenant);
    else runningPerTenant.set(pending.tenant, n);
  }

  function giveUp(pending: Pending, reason: string): void {
    abandoned++;
    pending.reject(new EvaluationAbandoned(reason));
  }

  const eligible = (tenant: string): boolean => (runningPerTenant.get(tenant) ?? 0) < tenantCap;

  function dispatch(): void {
    for (const slot of slots) {
      if (slot.job !== undefined || !slot.ready) continue;
      const next = queue.take(eligible);
      if (next === undefined) break;
      const pending = next.item;
      const remainingMs = pending.job.job.remainingMs - (clock.monotonic() - pending.queuedAt);
      slot.job = pending;
      slot.retire?.();
      slot.retire = undefined;
      pending.slot = slot;
      runningPerTenant.set(pending.tenant, (runningPerTenant.get(pending.tenant) ?? 0) + 1);
      slot.worker.postMessage({
        type: MESSAGE_TYPES[pending.job.kind],
        id: pending.id,
        job: { ...pending.job.job, remainingMs },
      } as ToWorker);
    }
    startWanted();
  }

  /**
   * Starts a worker (up to `size`, one at a time) when jobs wait, or when every worker is busy: a
   * spare is then ready for the next slow request of another namespace, instead of making it wait a
   * worker's start (a second or more) behind a tenant whose slow requests occupy the others.
   */
  function startWanted(): void {
    if (closed || startsFailed || slots.length >= size) return;
    if (!slots.every((slot) => slot.ready)) return;
    if (queue.size > 0 || !slots.some((slot) => slot.job === undefined)) slots.push(spawn());
  }

  /** Overran: the worker is terminated and replaced, the job abandoned. */
  function overrun(slot: Slot, pending: Pending): void {
    const at = slots.indexOf(slot);
    if (at >= 0) slots.splice(at, 1);
    release(slot, pending);
    giveUp(pending, "the evaluation overran its deadline; its worker was replaced");
    logger.warn(
      { tenant: pending.tenant, policies: pending.job.job.policies },
      "evaluation worker overran the deadline, replacing it",
    );
    void slot.worker.terminate();
    if (!closed) {
      replaced++;
      slots.push(spawn());
    }
    dispatch();
  }

  for (let i = 0; i < prestart; i++) slots.push(spawn());

  function submit(work: WorkerJob, tenant: string): Promise<JobResult> {
    const job = work.job;
    if (closed || (startsFailed && slots.length === 0))
      return Promise.reject(new EvaluationAbandoned("no evaluation worker runs"));
    return new Promise<JobResult>((resolve, reject) => {
      const id = nextId++;
      const pending: Pending = {
        id,
        job: work,
        tenant,
        resolve,
        reject,
        queuedAt: clock.monotonic(),
        cancelTimer: () => {},
        slot: undefined,
      };
      // At the deadline: a waiting job is answered at once; a running one gets `graceMs` more.
      pending.cancelTimer = clock.after(Math.max(0, job.remainingMs), () => {
        if (pending.slot === undefined) {
          if (queue.remove(tenant, pending))
            giveUp(pending, "the deadline passed while the request waited for a worker");
          return;
        }
        const slot = pending.slot;
        pending.cancelTimer = clock.after(graceMs, () => {
          if (slot.job === pending) overrun(slot, pending);
        });
      });
      queue.push(tenant, pending);
      dispatch();
    });
  }

  return {
    evaluate: (job, tenant) => submit({ kind: "step", job }, tenant) as Promise<StepResult>,
    evaluateCel: (job, tenant) => submit({ kind: "cel", job }, tenant) as Promise<CelJobResult>,
    parseReview: (text, remainingMs) =>
      submit(
        { kind: "parse", job: { text, remainingMs, policies: [] } },
        PARSE_TENANT,
      ) as Promise<ReviewParse>,
    setPolicy(key, policy) {
      policies.set(key, policy);
      broadcast({ type: "setPolicy", policy });
    },
    deletePolicy(key) {
      if (!policies.delete(key)) return;
      broadcast({ type: "deletePolicy", key });
    },
    setExceptions(list) {
      exceptions = [...list];
      broadcast({ type: "setExceptions", exceptions });
    },
    setCelPolicy(key, policy) {
      celPolicies.set(key, policy);
      broadcast({ type: "setCelPolicy", policy });
    },
    deleteCelPolicy(key) {
      if (!celPolicies.delete(key)) return;
      broadcast({ type: "deleteCelPolicy", key });
    },
    setCelException(key, exception) {
      celExceptions.set(key, exception);
      broadcast({ type: "setCelException", exception });
    },
    deleteCelException(key) {
      if (!celExceptions.delete(key)) return;
      broadcast({ type: "deleteCelException", key });
    },
    stats() {
      let running = 0;
      let ready = 0;
      for (const slot of slots) {
        if (slot.job !== undefined) running++;
        if (slot.ready) ready++;
      }
      return { workers: slots.length, ready, running, queued: queue.size, replaced, abandoned };
    },
    async close() {
      closed = true;
      const all = slots.splice(0);
      for (const slot of all) slot.retire?.();
      for (let next = queue.take(); next !== undefined; next = queue.take()) {
        next.item.cancelTimer();
        giveUp(next.item, "the evaluation pool is closed");
      }
      for (const slot of all) {
        if (slot.job !== undefined) {
          const pending = slot.job;
          release(slot, pending);
          giveUp(pending, "the evaluation pool is closed");
        }
      }
      await Promise.all(all.map((s) => s.worker.terminate()));
    },
  };
}
