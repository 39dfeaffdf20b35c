/** Running the host tools the kubelet drives (`ip`, `podman`, …) and quoting for `sh -c` scripts. */
import { execFile } from "node:child_process";

/** The outcome of one command. */
export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command to completion (never rejects; a missing binary is code 127). */
export function runCommand(
  file: string,
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<CommandResult> {
  return new Promise((resolve) => {
    execFile(
      file,
      [...args],
      { env: options.env ?? process.env, timeout: options.timeoutMs ?? 60000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code =
          error === null
            ? 0
            : typeof error.code === "number"
              ? error.code
              : error.code === "ENOENT"
                ? 127
                : 1;
        resolve({ code, stdout: String(stdout), stderr: String(stderr) });
      },
    );
  });
}

/** Runs a command and throws an error naming it and its stderr when it fails. */
export async function mustRun(
  file: string,
  args: readonly string[],
  env?: NodeJS.ProcessEnv,
): Promise<string> {
  const result = await runCommand(file, args, env === undefined ? {} : { env });
  if (result.code !== 0)
    throw new Error(`${file} ${args.join(" ")} failed (exit ${result.code}): ${result.stderr.trim()}`);
  return result.stdout;
}

/** Quotes one word for POSIX `sh`. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
