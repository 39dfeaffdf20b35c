/**
 * An evaluation worker (a `node:worker_threads` thread of the admission server). It lowers its
 * priority first, and that of V8's platform threads, which run its garbage collection
 * (platform-threads.ts), then loads its job loop (`worker-jobs.ts`): the engine's modules and the
 * policies' compilation of a worker started while requests are served already run at the lower
 * priority.
 */
import { getPriority, setPriority } from "node:os";
import { lowerPlatformThreads } from "./platform-threads.js";

/** How much lower than the serving thread's an evaluation worker's priority is (nice steps). */
const WORKER_NICENESS = 5;

// On Linux a thread has its own nice value: evaluation yields the CPU to the thread that accepts
// connections and answers probes when the machine is short of it. Without the permission, as it is.
try {
  setPriority(Math.min(19, getPriority() + WORKER_NICENESS));
  lowerPlatformThreads(getPriority());
} catch {
  // not permitted (or not Linux): same priority as the serving thread
}
await import("./worker-jobs.js");
