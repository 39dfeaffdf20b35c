import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { CliIo } from "../io.js";
import { clockOf, ExitCode } from "../io.js";
import { DEFAULT_TEST_FILE } from "../load/test-files.js";
import { renderJunit } from "../output/junit.js";
import { TestMessages } from "../output/messages.js";
import { reportProblems } from "../output/problems.js";
import { createProgress, formatSeconds } from "../output/progress.js";
import { renderClosing, renderJson, renderTestFile, summarize } from "../output/test-output.js";
import { parseSelector } from "../run/selector.js";
import { runTests } from "../run/test-runner.js";

/** Flags of `kyverno-ts test`. */
export interface TestOptions {
  fileName: string;
  testCaseSelector?: string;
  failOnly: boolean;
  detailedResults: boolean;
  junitPath?: string;
  output?: "json" | "table" | "junit";
  requireTests: boolean;
}

/**
 * Runs `test`: finds and runs every test file, prints upstream's per-test tables (or one JSON
 * object with `-o json`, or JUnit XML with `-o junit`), optionally writes JUnit XML to a file, and returns the exit status: 2 when inputs
 * are unusable (missing path, a test that fails to load, no tests with `--require-tests`),
 * 1 when any result line fails, else 0.
 */
export async function runTest(paths: readonly string[], options: TestOptions, io: CliIo): Promise<number> {
  const now = clockOf(io);
  const selector = parseSelector(options.testCaseSelector ?? "");
  if (!selector.ok) return reportProblems(io, [{ file: "--test-case-selector", message: selector.error }]);
  const json = options.output === "json";
  const junit = options.output === "junit";
  const quiet = json || junit;
  const display = { failOnly: options.failOnly, detailed: options.detailedResults };
  const progress = createProgress(io, now);
  const run = await runTests(
    paths.length > 0 ? paths : ["."],
    {
      fileName: options.fileName || DEFAULT_TEST_FILE,
      selector: selector.value,
      onFile: (done, total, file) => {
        progress.clear();
        if (!quiet) io.stdout.write(`${renderTestFile(file, display)}\n`);
        progress.update(done, total, file.path);
      },
    },
    io,
  );
  progress.clear();
  if (run.problems.length > 0) return reportProblems(io, run.problems);
  const summary = summarize(run);
  const outcomes = run.files.flatMap((f) => f.outcomes);
  if (json) io.stdout.write(renderJson(run, options.detailedResults));
  else if (junit) io.stdout.write(renderJunit(outcomes, run.durationMs / 1000));
  else if (run.files.length === 0)
    io.stdout.write(`${TestMessages.noTests(options.fileName || DEFAULT_TEST_FILE)}\n`);
  else io.stdout.write(renderClosing(run, display));
  if (options.junitPath) {
    const target = resolve(io.cwd, options.junitPath);
    try {
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, renderJunit(outcomes, run.durationMs / 1000));
    } catch (error) {
      return reportProblems(io, [{ file: options.junitPath, message: (error as Error).message }]);
    }
  }
  io.stderr.write(
    `${TestMessages.timing(summary.tests, summary.passed + summary.failed, formatSeconds(run.durationMs))}\n`,
  );
  if (run.files.length === 0 && options.requireTests) {
    return reportProblems(io, [
      { file: paths.join(" ") || ".", message: TestMessages.noTests(options.fileName) },
    ]);
  }
  if (summary.loadErrors > 0) return ExitCode.InputError;
  return summary.failed > 0 ? ExitCode.Failure : ExitCode.Ok;
}
