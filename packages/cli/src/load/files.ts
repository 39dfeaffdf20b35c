import { readdirSync, readFileSync, statSync } from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { formatLoadError, type LoadError } from "@kyverno-ts/api";
import type { CliIo } from "../io.js";
import { CommonMessages } from "../output/messages.js";

/** A file read for a command: where it came from and its text. */
export interface SourceFile {
  /** Absolute path, or `-` for stdin. */
  path: string;
  /** Path as shown to the user: relative to the working directory when inside it. */
  display: string;
  text: string;
}

/**
 * A problem with the command's input: a loader error from `@kyverno-ts/api` (file, document, field
 * path, line), or a file-level problem (missing file, URL) that names only the file.
 */
export type InputProblem = LoadError | { file: string; message: string };

/** Outcome of reading or loading inputs: a value, or the problems that prevent using it. */
export type InputResult<T> = { ok: true; value: T } | { ok: false; problems: InputProblem[] };

const YAML_EXTENSIONS = [".yaml", ".yml", ".json"];

/** True for inputs that point at the network (`http://`, `https://`, git URLs): those are never fetched. */
export function isUrl(input: string): boolean {
  return /^(https?|git|ssh):\/\//i.test(input) || /^git@/.test(input);
}

/** Formats an absolute path for display: relative to `cwd` when inside it. */
export function displayPath(cwd: string, absolute: string): string {
  if (absolute === "-") return "-";
  const rel = relative(cwd, absolute);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel) ? rel : absolute;
}

/** Lists the YAML/JSON files under a directory, recursively (hidden folders included), sorted. */
export function listYamlFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    const entries = readdirSync(d, { withFileTypes: true }).sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    );
    for (const entry of entries) {
      const full = join(d, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() && YAML_EXTENSIONS.some((ext) => entry.name.toLowerCase().endsWith(ext)))
        out.push(full);
    }
  };
  walk(dir);
  return out;
}

/** Reads one file by absolute path, or reports it missing / unreadable. */
export function readFile(absolute: string, display: string): InputResult<SourceFile> {
  try {
    return { ok: true, value: { path: absolute, display, text: readFileSync(absolute, "utf8") } };
  } catch (error) {
    const code = (error as { code?: string }).code;
    const message =
      code === "ENOENT" ? CommonMessages.notFound(display) : `${display}: ${(error as Error).message}`;
    return { ok: false, problems: [{ file: display, message }] };
  }
}

/**
 * Reads command-line inputs: files, directories (recursively, YAML/JSON only) and `-` for stdin.
 * Paths are relative to `io.cwd`. URLs are refused with a clear error rather than fetched.
 * All problems are collected so the user sees every missing file at once.
 */
export async function readInputs(inputs: readonly string[], io: CliIo): Promise<InputResult<SourceFile[]>> {
  const files: SourceFile[] = [];
  const problems: InputProblem[] = [];
  let stdinRead = false;
  for (const input of inputs) {
    if (input === "-") {
      if (stdinRead) {
        problems.push({ file: "-", message: CommonMessages.stdinTwice });
        continue;
      }
      stdinRead = true;
      if (!io.readStdin) {
        problems.push({ file: "-", message: CommonMessages.stdinUnavailable });
        continue;
      }
      files.push({ path: "-", display: "stdin", text: await io.readStdin() });
      continue;
    }
    if (isUrl(input)) {
      problems.push({ file: input, message: CommonMessages.urlNotFetched(input) });
      continue;
    }
    const absolute = resolve(io.cwd, input);
    let isDir: boolean;
    try {
      isDir = statSync(absolute).isDirectory();
    } catch {
      problems.push({ file: input, message: CommonMessages.notFound(input) });
      continue;
    }
    if (!isDir) {
      const read = readFile(absolute, displayPath(io.cwd, absolute));
      if (read.ok) files.push(read.value);
      else problems.push(...read.problems);
      continue;
    }
    const found = listYamlFiles(absolute);
    if (found.length === 0) problems.push({ file: input, message: CommonMessages.noYamlInDir(input) });
    for (const file of found) {
      const read = readFile(file, displayPath(io.cwd, file));
      if (read.ok) files.push(read.value);
      else problems.push(...read.problems);
    }
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value: files };
}

/**
 * Resolves a path written in a test file against the test's folder, as upstream does: relative
 * paths (including `../` into sibling folders) are joined with the test directory.
 */
export function resolveTestPath(testDir: string, path: string): string {
  return isAbsolute(path) ? path : resolve(testDir, path.split("/").join(sep));
}

/** Formats a problem on one line: `file:line (document N): path: message` for loader errors, `file: message` otherwise. */
export function formatProblem(problem: InputProblem): string {
  if ("code" in problem) return formatLoadError(problem);
  return problem.message.startsWith(`${problem.file}:`)
    ? problem.message
    : `${problem.file}: ${problem.message}`;
}
