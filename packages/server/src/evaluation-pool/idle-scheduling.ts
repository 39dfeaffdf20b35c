/**
 * An evaluation worker's thread under Linux's `SCHED_IDLE` policy. A higher nice value (worker.ts)
 * gives a busy worker a smaller share of the CPU, but not at once: when the serving thread wakes (a
 * request arrived) and the only core it can take runs a worker, the scheduler lets the worker finish
 * its time slice first, and on a 250 Hz kernel that can last until the next tick (4 ms). A thread
 * under `SCHED_IDLE` gives way as soon as another thread of its group wants the core, and a core that
 * runs only such threads counts as free when a waking thread is placed.
 *
 * `bench:isolation` (2 cores, one pathological review always in flight; 4 runs, each alternating a
 * build with nice 5 only and this one): the ordinary reviews' p99 while hostile was 1.28–1.60x (classic)
 * and 1.08–1.54x (CEL) their quiet p99 with the workers under `SCHED_IDLE`, against 1.45–2.01x and
 * 1.59–1.97x at nice 5 (goal ≤ 2x).
 *
 * The cost: under `SCHED_IDLE` a worker runs almost only on CPU its group leaves unused (its weight
 * is 3 against a normal thread's 1,024). In a pod the group is the container's cgroup, so the workers
 * give way only to the serving thread (the containers share the node by their cgroups): when the
 * serving thread is saturated, the workers' requests wait until their deadline and are answered per
 * failure policy, and ordinary requests keep being answered. Outside a container, with no cgroup of
 * its own (tests running many servers on shared cores), every busy thread of the session comes first,
 * so the tests run their workers at `nice` (vitest.config.ts).
 *
 * Node.js has no binding for `sched_setscheduler`, and native addons are not used, so util-linux's
 * `chrt` sets it (a thread may always move itself to `SCHED_IDLE`, with no capability; the image
 * ships `chrt`). Without it (not Linux, or no `chrt`), the worker keeps its nice value.
 */
import { execFileSync } from "node:child_process";
import { readlinkSync } from "node:fs";

/** The values of `--evaluationWorkerScheduling`, in the order the help lists them. */
export const REQUESTED_SCHEDULING = ["idle", "nice"] as const;

/** What `--evaluationWorkerScheduling` asks for. */
export type RequestedScheduling = (typeof REQUESTED_SCHEDULING)[number];

/** What a worker's thread got (reported in its `ready` message). */
export type WorkerScheduling =
  /** `SCHED_IDLE`, with V8's platform threads at a higher nice value. */
  | "idle"
  /** A higher nice value only (asked for, or `SCHED_IDLE` could not be set). */
  | "nice"
  /** As the serving thread (not permitted, or not Linux). */
  | "unchanged";

/** Where `chrt` is looked for: Debian's path, then `PATH`. */
const CHRT = ["/usr/bin/chrt", "chrt"] as const;

/** Runs a command to its end; throws when it cannot be run or fails. */
export type RunCommand = (file: string, args: readonly string[]) => void;

const runQuietly: RunCommand = (file, args) => {
  execFileSync(file, args, { stdio: "ignore", timeout: 5000 });
};

/** The calling thread's id (Linux's `/proc/thread-self` → `<pid>/task/<tid>`), or undefined elsewhere. */
export function currentThreadId(readLink: (path: string) => string = readlinkSync): number | undefined {
  try {
    const tid = Number(readLink("/proc/thread-self").split("/").pop());
    return Number.isInteger(tid) && tid > 0 ? tid : undefined;
  } catch {
    return undefined;
  }
}

/** Puts thread `tid` under `SCHED_IDLE` with `chrt`; false when no `chrt` could. */
export function scheduleIdle(tid: number, run: RunCommand = runQuietly): boolean {
  for (const chrt of CHRT) {
    try {
      run(chrt, ["--idle", "--pid", "0", String(tid)]);
      return true;
    } catch {
      // missing, or refused: the next one, or as it is
    }
  }
  return false;
}
