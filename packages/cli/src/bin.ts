#!/usr/bin/env node
import { youngGenerationArgv } from "./process/young-generation.js";

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
