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
 * serve admission reviews, `--no-allocation-site-pretenuring`), or undefined when it is not a server
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
    ...proc.execArgv,
    ...proc.argv.slice(1),
  ];
}
