/**
 * V8's young generation for the long-running commands. Node sizes each semi-space at up to 16 MiB
 * (64 MiB of young generation under load), which lets the short-lived garbage of a webhook burst or a
 * background scan grow the heap far past what the process keeps: `npm run bench:scan` peaked about
 * 100 MiB higher with the default, `bench:admission` about 50 MiB. The servers run with 4 MiB.
 *
 * The commands that answer admission reviews also run without allocation-site pretenuring. They
 * evaluate the reviews of one event-loop turn together (see the server's review-batch.ts), so the
 * HTTP objects of those reviews are alive whenever a scavenge falls inside a batch. V8 then sometimes
 * decides that their allocation sites make long-lived objects and allocates them straight in the old
 * generation, which grew to 114 MiB between full collections and left `bench:admission` at
 * 210–230 MiB peak RSS in 6 of 22 runs; with pretenuring off, 124–141 MiB in all of 18 runs.
 *
 * The commands that sync a whole cluster (the reports controller's scans, Policy Reporter's initial
 * sync) also bound how far the old generation grows between full collections. V8 sets the next limit
 * to a multiple of what the last full collection kept (up to 4x, from the collector's and the program's
 * speed); both commands keep little but allocate fast, and V8 let the heap reach 2–3x the live size
 * before collecting. With `--heap-growing-percent=50` (1.5x): `bench:scan` (12,000 resources) peaked
 * at 227 MiB instead of 312 MiB with no more CPU, and Policy Reporter at 100,000 results through the
 * watch at 218–239 MiB instead of 291–341 MiB, in the same sync time (`--optimize-for-size` gave
 * 201 MiB but doubled the sync time).
 */

/** Semi-space size (MiB) the server commands run with unless the user chose one. */
export const SERVER_SEMI_SPACE_MIB = 4;

/** The commands that run until stopped, and get the bounded young generation. */
export const SERVER_COMMANDS: ReadonlySet<string> = new Set([
  "admission",
  "reports",
  "reporter",
  "playground",
  "sandbox",
]);

/** The commands that serve admission reviews, which also run with `--no-allocation-site-pretenuring`. */
export const REVIEW_COMMANDS: ReadonlySet<string> = new Set(["admission", "playground"]);

/** Old-generation growth per full collection (percent) of the cluster-syncing commands. */
export const SYNC_HEAP_GROWING_PERCENT = 50;

/** The commands that sync a whole cluster, which also run with a bounded heap growth. */
export const SYNC_COMMANDS: ReadonlySet<string> = new Set(["reports", "reporter"]);

const HEAP_GROWING_FLAG = /--heap[-_]growing[-_]percent\b/;

const SEMI_SPACE_FLAG = /--max-semi-space-size\b/;

/** What `youngGenerationArgv` reads of the process. */
export interface ProcessLine {
  execPath: string;
  execArgv: readonly string[];
  /** `process.argv`: the node binary, the script, then the command and its arguments. */
  argv: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
}

/**
 * The command line that re-runs this process with `--max-semi-space-size` (and, for the commands that
 * serve admission reviews, `--no-allocation-site-pretenuring`; for those that sync a cluster,
 * `--heap-growing-percent` unless given), or undefined when it is not a server
 * command, only asks for help, or its flags (or NODE_OPTIONS) already set a semi-space size: the
 * user's choice wins, and the re-run process never re-runs itself.
 */
export function youngGenerationArgv(proc: ProcessLine): string[] | undefined {
  const [command, ...rest] = proc.argv.slice(2);
  if (command === undefined || !SERVER_COMMANDS.has(command)) return undefined;
  if (rest.includes("--help") || rest.includes("-h")) return undefined;
  if (proc.execArgv.some((a) => SEMI_SPACE_FLAG.test(a)) || SEMI_SPACE_FLAG.test(proc.env.NODE_OPTIONS ?? ""))
    return undefined;
  return [
    proc.execPath,
    `--max-semi-space-size=${SERVER_SEMI_SPACE_MIB}`,
    ...(REVIEW_COMMANDS.has(command) ? ["--no-allocation-site-pretenuring"] : []),
    ...(SYNC_COMMANDS.has(command) &&
    !proc.execArgv.some((a) => HEAP_GROWING_FLAG.test(a)) &&
    !HEAP_GROWING_FLAG.test(proc.env.NODE_OPTIONS ?? "")
      ? [`--heap-growing-percent=${SYNC_HEAP_GROWING_PERCENT}`]
      : []),
    ...proc.execArgv,
    ...proc.argv.slice(1),
  ];
}
