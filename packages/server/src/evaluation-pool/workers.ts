/**
 * The pool's worker threads, from start to stop: a worker starts when a job finds no free one (or as
 * the spare while every worker is busy), is sent the current policies, takes jobs once it is ready,
 * stops after `idleMs` without a job (down to `prestart`), and is replaced when it dies or overruns a
 * deadline; after `MAX_FAILED_STARTS` workers died before getting ready, no more are started.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { assignJobs } from "./assign.js";
import type { WorkerScheduling } from "./idle-scheduling.js";
import { giveUp, type Pending, type PoolState, release, type Slot } from "./pool-state.js";
import type { FromWorker, ToWorker } from "./protocol.js";

/** Workers that die before starting, in a row, after which no more are started. */
const MAX_FAILED_STARTS = 3;

/**
 * The built worker module beside this one; when this module runs from its TypeScript sources (tests,
 * `tsx`-style runs) there is no `worker.js`, and the source entry is started with type transforms.
 */
export function defaultWorker(execArgv: string[] | undefined): { url: URL; execArgv: string[] | undefined } {
  const built = new URL("./worker.js", import.meta.url);
  if (existsSync(fileURLToPath(built))) return { url: built, execArgv };
  return {
    url: new URL("./testing/source-worker.ts", import.meta.url),
    execArgv: [...(execArgv ?? []), "--experimental-transform-types", "--no-warnings"],
  };
}

/** Queued jobs to the free workers, then a worker started if one is wanted. */
export function dispatch(s: PoolState): void {
  assignJobs(s);
  startWanted(s);
}

/** Starts a worker, sends it the current policies and exceptions, and adds it to the slots. */
export function spawn(s: PoolState): void {
  const worker = new Worker(s.workerUrl, {
    workerData: s.settings,
    ...(s.execArgv ? { execArgv: s.execArgv } : {}),
  });
  const slot: Slot = { worker, job: undefined, ready: false, retire: undefined };
  s.started++;
  // The current policies and exceptions, so a replacement worker starts where the others are.
  for (const policy of s.policies.values())
    worker.postMessage({ type: "setPolicy", policy } satisfies ToWorker);
  if (s.exceptions.length > 0)
    worker.postMessage({ type: "setExceptions", exceptions: s.exceptions } satisfies ToWorker);
  for (const exception of s.celExceptions.values())
    worker.postMessage({ type: "setCelException", exception } satisfies ToWorker);
  for (const policy of s.celPolicies.values())
    worker.postMessage({ type: "setCelPolicy", policy } satisfies ToWorker);
  worker.postMessage({ type: "ping" } satisfies ToWorker);
  worker.on("message", (message: FromWorker) => onMessage(s, slot, message));
  worker.on("error", (error) => {
    s.logger.error({ err: error }, "evaluation worker failed");
  });
  worker.on("exit", () => onExit(s, slot));
  worker.unref();
  s.slots.push(slot);
}

/** How the workers yield the CPU, by what their threads got, as the log says it. */
const SCHEDULING_SAID: Readonly<Record<WorkerScheduling, string>> = {
  idle: "under SCHED_IDLE: only on CPU the serving thread leaves",
  nice: "at a lower priority (nice) than the serving thread",
  unchanged: "at the serving thread's priority (not permitted to lower it)",
};

/** Says once how the workers yield the CPU to the serving thread; a warning when they got less than asked. */
function logScheduling(s: PoolState, got: WorkerScheduling): void {
  const said = `evaluation workers run ${SCHEDULING_SAID[got]}`;
  if (got === "idle") s.logger.info({ scheduling: got }, said);
  else if ((s.settings.scheduling ?? "nice") === "idle")
    s.logger.warn({ scheduling: got }, `${said}: SCHED_IDLE could not be set (no chrt, or not Linux)`);
  else s.logger.debug({ scheduling: got }, said);
}

/** The worker got ready, or answered its job. */
function onMessage(s: PoolState, slot: Slot, message: FromWorker): void {
  if (message.type === "ready") {
    slot.ready = true;
    s.failedStarts = 0;
    if (!s.schedulingLogged) {
      s.schedulingLogged = true;
      logScheduling(s, message.scheduling);
    }
    dispatch(s);
    if (slot.job === undefined) idle(s, slot);
    return;
  }
  const pending = slot.job;
  if (pending === undefined || pending.id !== message.id) return;
  release(s, slot, pending);
  if (message.type === "result" || message.type === "celResult" || message.type === "parsed")
    pending.resolve(message.result);
  else {
    s.logger.error({ reason: message.message }, "admission evaluation failed in a worker");
    giveUp(s, pending, `evaluation failed: ${message.message}`);
  }
  dispatch(s);
  if (slot.job === undefined) idle(s, slot);
}

/** The worker died: its job is abandoned and it is replaced, unless workers keep dying before ready. */
function onExit(s: PoolState, slot: Slot): void {
  const at = s.slots.indexOf(slot);
  if (at < 0) return; // terminated on purpose: already replaced
  s.slots.splice(at, 1);
  const pending = slot.job;
  if (pending !== undefined) {
    release(s, slot, pending);
    giveUp(s, pending, "the evaluation worker exited");
  }
  if (!slot.ready) s.failedStarts++;
  if (s.failedStarts >= MAX_FAILED_STARTS) {
    s.startsFailed = true;
    s.logger.error(
      { url: s.workerUrl.href },
      "evaluation workers do not start; requests are answered per failure policy",
    );
    if (s.slots.length === 0)
      for (let n = s.queue.take(); n !== undefined; n = s.queue.take())
        giveUp(s, n.item, "no evaluation worker runs");
    return;
  }
  if (!s.closed) {
    s.replaced++;
    spawn(s);
    dispatch(s);
  }
}

/**
 * An idle worker stops after `idleMs` unless a job comes first, down to `prestart` workers; while
 * another worker is busy it stays as the spare (see `startWanted`) and looks again later.
 */
function idle(s: PoolState, slot: Slot): void {
  slot.retire?.();
  slot.retire = s.clock.after(s.idleMs, () => {
    slot.retire = undefined;
    const at = s.slots.indexOf(slot);
    if (s.closed || slot.job !== undefined || at < 0 || s.slots.length <= s.prestart) return;
    const busy = s.slots.some((other) => other.job !== undefined);
    const spare = s.slots.some((other) => other !== slot && other.ready && other.job === undefined);
    if (busy && !spare) return idle(s, slot);
    s.slots.splice(at, 1);
    void slot.worker.terminate();
  });
}

/**
 * Starts a worker (up to `size`, one at a time) when jobs wait, or when every worker is busy: a
 * spare is then ready for the next slow request of another namespace, instead of making it wait a
 * worker's start (a second or more) behind a tenant whose slow requests occupy the others.
 */
function startWanted(s: PoolState): void {
  if (s.closed || s.startsFailed || s.slots.length >= s.size) return;
  if (!s.slots.every((slot) => slot.ready)) return;
  if (s.queue.size > 0 || !s.slots.some((slot) => slot.job === undefined)) spawn(s);
}

/** Overran: the worker is terminated and replaced, the job abandoned. */
export function overrun(s: PoolState, slot: Slot, pending: Pending): void {
  const at = s.slots.indexOf(slot);
  if (at >= 0) s.slots.splice(at, 1);
  release(s, slot, pending);
  giveUp(s, pending, "the evaluation overran its deadline; its worker was replaced");
  s.logger.warn(
    { tenant: pending.tenant, policies: pending.job.job.policies },
    "evaluation worker overran the deadline, replacing it",
  );
  void slot.worker.terminate();
  if (!s.closed) {
    s.replaced++;
    spawn(s);
  }
  dispatch(s);
}
