/** `kyverno-ts sandbox`: start a sandbox, print how to reach it, run until SIGINT/SIGTERM. */
import type { Writable } from "node:stream";
import { startSandbox } from "./sandbox.js";

/** Options of `runSandboxCommand`. */
export interface RunSandboxOptions {
  stdout: Writable;
  /** Command-line arguments after `sandbox`: `--port N`, `--data-dir DIR`, `--crd FILE` (repeatable). */
  args: readonly string[];
  /** Resolves when the command should stop (defaults to the first SIGINT or SIGTERM). */
  until?: Promise<void>;
}

const USAGE = "usage: kyverno-ts sandbox [--port N] [--data-dir DIR] [--crd FILE]...";

/** Runs the sandbox command; resolves with the exit code once stopped. */
export async function runSandboxCommand(options: RunSandboxOptions): Promise<number> {
  const { stdout, args } = options;
  const crds: string[] = [];
  let port = 0;
  let dataDir: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const value = args[i + 1];
    if (arg === "--help" || arg === "-h") {
      stdout.write(`${USAGE}\n`);
      return 0;
    }
    if (value === undefined || !["--port", "--data-dir", "--crd"].includes(arg ?? "")) {
      stdout.write(`unknown or incomplete argument ${JSON.stringify(arg)}\n${USAGE}\n`);
      return 2;
    }
    i++;
    if (arg === "--port") port = Number(value);
    else if (arg === "--data-dir") dataDir = value;
    else crds.push(value);
  }
  const sandbox = await startSandbox(dataDir === undefined ? { port, crds } : { port, crds, dataDir });
  stdout.write(
    `Sandbox API server listening on ${sandbox.url}\n` +
      `kubeconfig: ${sandbox.kubeconfigPath}\n` +
      `try: kubectl --kubeconfig ${sandbox.kubeconfigPath} get ns\n` +
      "Press Ctrl+C to stop.\n",
  );
  const until =
    options.until ??
    new Promise<void>((resolve) => {
      process.once("SIGINT", () => resolve());
      process.once("SIGTERM", () => resolve());
    });
  await until;
  await sandbox.stop();
  stdout.write("Sandbox stopped.\n");
  return 0;
}
