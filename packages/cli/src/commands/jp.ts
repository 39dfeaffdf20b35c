import { systemClock } from "@kyverno-ts/api";
import { createJmespath } from "@kyverno-ts/engine";
import type { CliIo } from "../io.js";
import { ExitCode } from "../io.js";
import { parseSources, type Warnings } from "../load/documents.js";
import { readInputs } from "../load/files.js";
import { JpMessages } from "../output/messages.js";
import { reportProblems } from "../output/problems.js";

/** Flags of `kyverno-ts jp query`. */
export interface JpQueryOptions {
  input?: string;
  query: string[];
  compact: boolean;
  unquoted: boolean;
}

async function readText(paths: readonly string[], io: CliIo) {
  const read = await readInputs(paths, io);
  if (!read.ok) return read;
  return { ok: true as const, value: read.value.map((s) => s.text.trim()) };
}

async function expressions(args: readonly string[], files: readonly string[], io: CliIo, stdinFree: boolean) {
  const fromFiles = await readText(files, io);
  if (!fromFiles.ok) return fromFiles;
  const all = [...fromFiles.value, ...args];
  if (all.length > 0 || !stdinFree) return { ok: true as const, value: all };
  return readText(["-"], io);
}

/**
 * `jp query`: evaluates each expression (arguments, then `-q` files; stdin when none) on the input
 * (`-i` JSON/YAML file, else stdin) with Kyverno's functions, printing `# expr` and the result.
 */
export async function runJpQuery(
  args: readonly string[],
  options: JpQueryOptions,
  io: CliIo,
): Promise<number> {
  const warnings: Warnings = [];
  const exprs = await expressions(args, options.query, io, options.input !== undefined);
  if (!exprs.ok) return reportProblems(io, exprs.problems);
  if (exprs.value.length === 0)
    return reportProblems(io, [{ file: "jp query", message: JpMessages.noExpression }]);
  const read = await readInputs([options.input ?? "-"], io);
  if (!read.ok) return reportProblems(io, read.problems);
  const docs = parseSources(read.value, warnings);
  if (!docs.ok) return reportProblems(io, docs.problems);
  const data = docs.value[0]?.value ?? null;
  const jp = createJmespath({ clock: systemClock });
  let status: number = ExitCode.Ok;
  for (const expr of exprs.value) {
    io.stdout.write(`${JpMessages.header(expr)}\n`);
    const result = jp.search(expr, data);
    if (!result.ok) {
      io.stderr.write(`${JpMessages.error(expr, result.error)}\n`);
      status = ExitCode.InputError;
      continue;
    }
    const value = result.value;
    const text =
      options.unquoted && typeof value === "string"
        ? value
        : JSON.stringify(value, null, options.compact ? 0 : 2);
    io.stdout.write(`${text}\n`);
  }
  return status;
}

/** `jp function [names…]`: lists Kyverno's JMESPath functions (all, or the named ones) with signatures. */
export function runJpFunction(names: readonly string[], io: CliIo): number {
  const jp = createJmespath({ clock: systemClock });
  const all = [...jp.functions()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const unknown = names.filter((n) => !all.some((f) => f.name === n));
  if (unknown.length > 0)
    return reportProblems(
      io,
      unknown.map((n) => ({ file: "jp function", message: JpMessages.unknownFunction(n) })),
    );
  const shown = names.length > 0 ? all.filter((f) => names.includes(f.name)) : all;
  io.stdout.write(
    shown.map((f) => JpMessages.functionEntry(f.name, f.signature, f.returnType, f.description)).join("\n"),
  );
  return ExitCode.Ok;
}

/**
 * `jp parse [exprs…]`: checks each expression (arguments, `-f` files, else stdin): syntax and
 * function names. Upstream prints the syntax tree; the engine does not expose its AST, so this
 * prints `valid` (exit 0) or the error (exit 2).
 */
export async function runJpParse(
  args: readonly string[],
  files: readonly string[],
  io: CliIo,
): Promise<number> {
  const exprs = await expressions(args, files, io, true);
  if (!exprs.ok) return reportProblems(io, exprs.problems);
  const jp = createJmespath({ clock: systemClock });
  let status: number = ExitCode.Ok;
  for (const expr of exprs.value) {
    io.stdout.write(`${JpMessages.header(expr)}\n`);
    const error = jp.check(expr);
    if (error !== undefined) {
      io.stderr.write(`${JpMessages.error(expr, error)}\n`);
      status = ExitCode.InputError;
      continue;
    }
    io.stdout.write(`${JpMessages.valid}\n`);
  }
  return status;
}
