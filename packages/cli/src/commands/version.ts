import { readFileSync } from "node:fs";
import type { CliIo } from "../io.js";
import { ExitCode } from "../io.js";
import { VersionMessages } from "../output/messages.js";

/** The CLI's version, read from its package.json (the same file from `src/` and `dist/`). */
export function cliVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
      version?: unknown;
    };
    return typeof pkg.version === "string" ? pkg.version : "unknown";
  } catch {
    return "unknown";
  }
}

/** `version`: prints the CLI version and what it is compatible with. */
export function runVersion(io: CliIo): number {
  io.stdout.write(`${VersionMessages.version(cliVersion())}\n${VersionMessages.compatibility}\n`);
  return ExitCode.Ok;
}
