/**
 * How far `kyverno-ts reports` lets V8's old generation grow between full collections. V8 sets the
 * next limit to a multiple of what the last full collection kept (up to 4x, picked from the
 * collector's and the program's speed). A full scan keeps the informer caches and one entry per
 * report, but allocates fast (results, report bodies, requests, Events), and V8 let the heap grow far
 * past what it keeps before collecting. With a factor of 1.5 the peak stays nearer the live heap (the
 * reporter does the same, see its bin/heap.ts): `bench:scan` (12,000 resources, on a loaded machine)
 * peaked at 227 MiB instead of 312 MiB (two runs), with no more CPU (39 s against 40–44 s).
 *
 * The flag is read at every full collection, so setting it when the command starts is enough; a
 * `--heap-growing-percent` given to node itself (on its command line or in NODE_OPTIONS) wins.
 */
import { setFlagsFromString } from "node:v8";

/** Growth of the old generation per full collection, in percent (V8's `--heap-growing-percent`). */
export const REPORTS_HEAP_GROWING_PERCENT = 50;

const FLAG = "--heap-growing-percent";

/** What {@link boundHeapGrowth} reads of the process. */
export interface HeapProcess {
  execArgv: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
}

/**
 * Sets V8's heap growing factor to {@link REPORTS_HEAP_GROWING_PERCENT} unless node was started with
 * its own `--heap-growing-percent`. Returns the flag set, or undefined when the user's choice was kept.
 */
export function boundHeapGrowth(
  proc: HeapProcess,
  setFlags: (flags: string) => void = setFlagsFromString,
): string | undefined {
  const given = (arg: string) =>
    arg === FLAG || arg.startsWith(`${FLAG}=`) || arg.startsWith("--heap_growing_percent");
  if (proc.execArgv.some(given) || (proc.env.NODE_OPTIONS ?? "").split(/\s+/).some(given)) return undefined;
  const flag = `${FLAG}=${REPORTS_HEAP_GROWING_PERCENT}`;
  setFlags(flag);
  return flag;
}
