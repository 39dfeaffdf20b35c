/** Anything text can be written to: `process.stdout`, a test buffer. */
export interface OutputStream {
  write(text: string): unknown;
}

/**
 * Everything a command may touch outside itself, injected so commands run in-process in tests:
 * output streams, working directory, environment, terminal detection, stdin and the clock.
 * File reads go through `node:fs`, relative to `cwd`.
 */
export interface CliIo {
  stdout: OutputStream;
  stderr: OutputStream;
  /** Directory relative paths are resolved against. */
  cwd: string;
  env: Record<string, string | undefined>;
  /** True when stderr is a terminal: progress lines are only drawn then (and never when `CI` is set). */
  isTTY: boolean;
  /** Reads all of stdin; when absent, `-` / `--stdin` inputs are an input error. */
  readStdin?: () => Promise<string>;
  /** Monotonic milliseconds, for timing summaries; defaults to `performance.now()`. */
  now?: () => number;
}

/** Process exit statuses, as upstream Kyverno uses them. */
export const ExitCode = {
  /** Everything passed. */
  Ok: 0,
  /** A policy failed or errored (apply), or a test line did not match (test). */
  Failure: 1,
  /** The input could not be used: bad YAML, unknown field, missing file, bad flag. */
  InputError: 2,
} as const;

/** One of the `ExitCode` values, or a user-chosen `--warn-exit-code`. */
export type ExitStatus = number;

/** Returns the clock of `io`, or `performance.now`. */
export function clockOf(io: CliIo): () => number {
  return io.now ?? (() => performance.now());
}

/** True when progress lines should be drawn on stderr: a terminal, and not a CI run. */
export function showsProgress(io: CliIo): boolean {
  const ci = io.env.CI;
  return io.isTTY && (ci === undefined || ci === "" || ci === "false" || ci === "0");
}
