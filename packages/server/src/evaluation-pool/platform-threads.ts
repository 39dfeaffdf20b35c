/**
 * V8's platform threads, which run the garbage collection work of every isolate in the process: the
 * serving thread's and each evaluation worker's scavenges and concurrent marking are posted to the
 * same few `V8Worker` threads. An evaluation worker runs at a lower priority than the serving thread
 * (worker.ts), but a policy that allocates fast (a CEL expression building millions of strings) hands
 * much of its cost to these threads, which ran at the serving thread's priority and took the CPU
 * from it: on 2 cores, `bench:isolation --kinds cel` gave ordinary reviews 2.1–2.5x their quiet p99
 * while a pathological review was in flight, and 1.2–1.6x with the helper threads' GC kept off them
 * (`--single-threaded-gc`, `--v8-pool-size=1`, which cost the serving thread its parallel GC). So a
 * worker lowers these threads to its own priority too: the serving thread still uses them, and does
 * the rest of its own collection itself when they wait for the CPU.
 *
 * Linux only (a thread's nice value is its own, and `/proc/self/task` names the threads); elsewhere,
 * or without the permission, nothing changes.
 */
import { readdirSync, readFileSync } from "node:fs";
import { getPriority, setPriority } from "node:os";

/** The thread name V8's platform gives its worker threads (Node's `NodePlatform` worker pool). */
export const PLATFORM_THREAD_NAME = "V8Worker";

/** The threads of this process, and their priorities. */
export interface ThreadTable {
  /** Thread ids. */
  ids(): number[];
  /** The thread's name (`comm`), or undefined when it is gone or cannot be read. */
  name(id: number): string | undefined;
  priority(id: number): number;
  setPriority(id: number, nice: number): void;
}

/** The threads of this process from `/proc/self/task` (empty where there is no such folder). */
export function procThreadTable(): ThreadTable {
  return {
    ids: () => {
      try {
        return readdirSync("/proc/self/task").map(Number).filter(Number.isInteger);
      } catch {
        return [];
      }
    },
    name: (id) => {
      try {
        return readFileSync(`/proc/self/task/${id}/comm`, "utf8").trim();
      } catch {
        return undefined;
      }
    },
    priority: (id) => getPriority(id),
    setPriority: (id, nice) => setPriority(id, nice),
  };
}

/**
 * Lowers V8's platform threads to at least `nice` (a thread already lower is left as it is; a
 * priority is never raised). Returns how many threads were lowered; a thread that cannot be changed
 * (gone, not permitted) is skipped.
 */
export function lowerPlatformThreads(nice: number, table: ThreadTable = procThreadTable()): number {
  let lowered = 0;
  for (const id of table.ids()) {
    if (table.name(id) !== PLATFORM_THREAD_NAME) continue;
    try {
      if (table.priority(id) >= nice) continue;
      table.setPriority(id, nice);
      lowered++;
    } catch {
      // gone, or not permitted: as it is
    }
  }
  return lowered;
}
