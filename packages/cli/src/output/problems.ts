import type { LoadError } from "@kyverno-ts/api";
import type { CliIo } from "../io.js";
import { ExitCode } from "../io.js";
import { formatProblem, type InputProblem } from "../load/files.js";
import { CommonMessages } from "./messages.js";

/** Writes every input problem to stderr, one per line, and returns the input-error exit status. */
export function reportProblems(io: CliIo, problems: readonly InputProblem[]): number {
  for (const p of problems) io.stderr.write(`${CommonMessages.error(formatProblem(p))}\n`);
  return ExitCode.InputError;
}

/** Writes loader warnings (deprecated fields, duplicate keys) to stderr. */
export function reportWarnings(io: CliIo, warnings: readonly LoadError[]): void {
  for (const w of warnings) io.stderr.write(`Warning: ${formatProblem(w)}\n`);
}
