import { type Dirent, readdirSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import type { CliIo } from "../io.js";
import { CommonMessages } from "../output/messages.js";
import { displayPath, type InputProblem, type InputResult, isUrl } from "./files.js";

/** Upstream's default test file name. */
export const DEFAULT_TEST_FILE = "kyverno-test.yaml";

const SKIPPED_DIRS = new Set([".git", "node_modules"]);

/**
 * Finds test files under the given paths: directories are searched recursively (hidden folders
 * such as `.kyverno-test` included; `.git` and `node_modules` skipped, symlinks not followed), and
 * a path to a file is taken as a test file itself. Returns absolute paths, sorted per input.
 */
export function findTestFiles(inputs: readonly string[], fileName: string, io: CliIo): InputResult<string[]> {
  const found: string[] = [];
  const problems: InputProblem[] = [];
  const walk = (dir: string) => {
    let listed: Dirent[];
    try {
      listed = readdirSync(dir, { withFileTypes: true });
    } catch (error) {
      problems.push({ file: displayPath(io.cwd, dir), message: (error as Error).message });
      return;
    }
    const entries = listed.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name)) walk(full);
      } else if (entry.isFile() && entry.name === fileName) found.push(full);
    }
  };
  for (const input of inputs) {
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
    if (isDir) walk(absolute);
    else found.push(absolute);
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value: [...new Set(found)] };
}

/** Display form of a test file path: relative to the working directory when inside it. */
export function testDisplay(io: CliIo, absolute: string): string {
  return displayPath(io.cwd, absolute) || basename(absolute);
}
