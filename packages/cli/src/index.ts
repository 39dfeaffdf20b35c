/**
 * `@kyverno-ts/cli`: the `kyverno-ts` command line. `runCli` runs it in-process with injected I/O;
 * `runTests` is the test runner behind `kyverno-ts test`, for scripts (conformance) that need the
 * per-line outcomes rather than printed output.
 */

/** The injected I/O of `runCli` / `runTests`: streams, cwd, env, terminal detection, stdin, clock. */
export type { CliIo, OutputStream } from "./io.js";
/** Exit statuses: 0 ok, 1 failures, 2 input errors. */
export { ExitCode } from "./io.js";
/** The young-generation bound the server commands run with, and the command line that applies it. */
export { SERVER_SEMI_SPACE_MIB, youngGenerationArgv } from "./process/young-generation.js";
/** Runs the CLI in-process and resolves to its exit status. */
export { runCli } from "./program.js";
/** Verdict for one (result line × resource) of a test. */
export type { LineOutcome } from "./run/judge.js";
/** A parsed `--test-case-selector`. */
export type { TestCaseSelector } from "./run/selector.js";
/** Results of running test files. */
export type { TestFileResult, TestRun, TestRunOptions } from "./run/test-runner.js";
/** Finds and runs `kyverno-test.yaml` files, returning per-line outcomes without printing. */
export { runTests } from "./run/test-runner.js";
