/**
 * An evaluation worker (a `node:worker_threads` thread of the admission server). It lowers its
 * priority first, and that of V8's platform threads, which run its garbage collection
 * (platform-threads.ts), loads its job loop (`worker-jobs.ts`), moves itself under `SCHED_IDLE` when
 * asked to (idle-scheduling.ts), and starts the loop: the engine's modules and the policies'
 * compilation of a worker started while requests are served already run at the lower priority.
 */
import { getPriority, setPriority } from "node:os";
import { workerData } from "node:worker_threads";
import { currentThreadId, scheduleIdle, type WorkerScheduling } from "./idle-scheduling.js";
import { lowerPlatformThreads } from "./platform-threads.js";
import type { WorkerSettings } from "./protocol.js";

/** How much lower than the serving thread's an evaluation worker's priority is (nice steps). */
const WORKER_NICENESS = 5;

// On Linux a thread has its own nice value: evaluation yields the CPU to the thread that accepts
// connections and answers probes when the machine is short of it. Without the permission, as it is.
let scheduling: WorkerScheduling = "unchanged";
try {
  setPriority(Math.min(19, getPriority() + WORKER_NICENESS));
  lowerPlatformThreads(getPriority());
  scheduling = "nice";
} catch {
  // not permitted (or not Linux): same priority as the serving thread
}
const { startJobLoop } = await import("./worker-jobs.js");
// After the modules are loaded (at the lower nice value): under SCHED_IDLE a thread gets a tiny
// share of a core its group keeps busy, and loading the engine takes a few hundred ms of CPU.
if ((workerData as WorkerSettings).scheduling === "idle") {
  const tid = currentThreadId();
  if (tid !== undefined && scheduleIdle(tid)) scheduling = "idle";
}
startJobLoop(scheduling);
