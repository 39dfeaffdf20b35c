#!/usr/bin/env node
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { nodeVerdict } from "./process/node-version.js";
import { youngGenerationArgv } from "./process/young-generation.js";

// Older Node.js versions fail deep inside dependencies: check first, then run on the pinned Node.js 24
// or say what to do (see process/node-version.ts). Nothing else is loaded before this point.
const verdict = nodeVerdict(
  process.versions.node,
  process.execPath,
  dirname(fileURLToPath(import.meta.url)),
  existsSync,
);
if (verdict.kind === "unsupported") {
  process.stderr.write(verdict.message);
  process.exit(1);
}
if (verdict.kind === "rerun") await runOn(verdict.node);

/**
 * Runs this command line again on `node` and ends with its outcome. SIGTERM (sent to this pid by
 * `kill` or a supervisor) is passed on; SIGINT and SIGHUP come from the terminal, which already sends
 * them to the whole process group, child included, so they are only kept from ending this process early.
 */
async function runOn(node: string): Promise<never> {
  const child = spawn(node, [...process.execArgv, ...process.argv.slice(1)], { stdio: "inherit" });
  process.on("SIGTERM", () => child.kill("SIGTERM"));
  process.on("SIGINT", () => {});
  process.on("SIGHUP", () => {});
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.on("exit", (c, s) => resolve([c, s])),
  );
  if (signal !== null) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  }
  process.exit(code ?? 1);
}

// Long-running commands re-run themselves (same pid) with a bounded young generation, before
// anything heavy is loaded; see process/young-generation.ts.
const rerun = youngGenerationArgv(process);
if (rerun !== undefined && typeof process.execve === "function") {
  try {
    process.execve(rerun[0] as string, rerun, process.env);
  } catch (error) {
    process.stderr.write(
      `warning: cannot re-run with a bounded young generation: ${(error as Error).message}\n`,
    );
  }
}

const { runCli } = await import("./program.js");

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin)
    chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString("utf8");
}

// A closed pipe (`kyverno-ts bundle | head`) ends the output quietly instead of crashing.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw error;
  });
}

process.exitCode = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  cwd: process.cwd(),
  env: process.env,
  isTTY: process.stderr.isTTY === true,
  readStdin,
});
