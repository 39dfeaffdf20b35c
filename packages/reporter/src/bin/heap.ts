/**
 * How far the reporter lets V8's old generation grow between full collections. V8 sets the next
 * limit to a multiple of what the last full collection kept, picked from the collector's and the
 * program's speed (up to 4x). An initial sync keeps little — about a page of reports in flight, the
 * per-report bookkeeping and the program's own code, 75–95 MiB at 100,000 results — but allocates
 * fast, and V8 let the heap reach 2–3x that before collecting: 301–342 MiB peak RSS through the
 * watch at 100,000 results on PostgreSQL (`bench-reporter-watch.ts`), the heap alone 154–226 MiB.
 * With a factor of 1.5 the same sync peaked at 231 MiB in the same time (the flag
 * `--optimize-for-size`: 201 MiB, but the sync took twice as long).
 *
 * The flag is read at every full collection, so setting it when the command starts is enough; a
 * `--heap-growing-percent` given to node itself (`node --heap-growing-percent=… kyverno-ts reporter`)
 * wins.
 */
import { setFlagsFromString } from "node:v8";

/** Growth of the old generation per full collection, in percent (V8's `--heap-growing-percent`). */
export const REPORTER_HEAP_GROWING_PERCENT = 50;

const FLAG = "--heap-growing-percent";

/** What {@link boundHeapGrowth} reads of the process. */
export interface HeapProcess {
  execArgv: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
}

/**
 * Sets V8's heap growing factor to {@link REPORTER_HEAP_GROWING_PERCENT} unless node was started with
 * its own `--heap-growing-percent` (on the command line or in NODE_OPTIONS). Returns the flag set, or
 * undefined when the user's choice was kept.
 */
export function boundHeapGrowth(
  proc: HeapProcess,
  setFlags: (flags: string) => void = setFlagsFromString,
): string | undefined {
  const given = (arg: string) =>
    arg === FLAG || arg.startsWith(`${FLAG}=`) || arg.startsWith("--heap_growing_percent");
  if (proc.execArgv.some(given) || (proc.env.NODE_OPTIONS ?? "").split(/\s+/).some(given)) return undefined;
  const flag = `${FLAG}=${REPORTER_HEAP_GROWING_PERCENT}`;
  setFlags(flag);
  return flag;
}
