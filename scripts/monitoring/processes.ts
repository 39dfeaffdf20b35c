// The processes of the monitoring end-to-end test: the kyverno-ts binaries as a user starts them (the
// CLI's built bin) and a real Prometheus, each a child process on loopback, with a helper to wait for
// a line of their output and to stop them.
//
// Plain Node 24 type stripping: erasable TypeScript only.
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";

const CLI = fileURLToPath(new URL("../../packages/cli/dist/bin.js", import.meta.url));

/** A running child process. */
export interface Child {
  readonly name: string;
  /** The last 64 KiB of its output. */
  output(): string;
  /** Resolves with the first match of `pattern` in its output (rejects on exit or after `ms`). */
  waitFor(pattern: RegExp, ms: number): Promise<RegExpExecArray>;
  stop(): Promise<void>;
}

function track(name: string, child: ChildProcess): Child {
  let output = "";
  const waiters = new Set<() => void>();
  const keep = (chunk: Buffer): void => {
    output = (output + chunk.toString()).slice(-65536);
    for (const w of waiters) w();
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    child.once("exit", () => {
      exited = true;
      for (const w of waiters) w();
      resolve();
    }),
  );
  return {
    name,
    output: () => output,
    waitFor(pattern, ms) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`${name}: no ${pattern} within ${ms} ms:\n${output}`));
        }, ms);
        const check = (): void => {
          const m = pattern.exec(output);
          if (m) {
            clearTimeout(timer);
            waiters.delete(check);
            resolve(m);
          } else if (exited) {
            clearTimeout(timer);
            waiters.delete(check);
            reject(new Error(`${name} exited:\n${output}`));
          }
        };
        waiters.add(check);
        check();
      });
    },
    async stop() {
      if (!exited) child.kill("SIGTERM");
      const killer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exit;
      clearTimeout(killer);
    },
  };
}

/** Starts `kyverno-ts <args>` from the built CLI. */
export function startKyvernoTs(name: string, args: readonly string[]): Child {
  return track(name, spawn(process.execPath, [CLI, ...args], { stdio: ["ignore", "pipe", "pipe"] }));
}

/** Starts `prometheus` with a configuration file, its data in `dataDir`, on `127.0.0.1:<port>`. */
export function startPrometheus(configFile: string, dataDir: string, port: number): Child {
  return track(
    "prometheus",
    spawn(
      "prometheus",
      [
        `--config.file=${configFile}`,
        `--storage.tsdb.path=${dataDir}`,
        `--web.listen-address=127.0.0.1:${port}`,
        "--log.level=warn",
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    ),
  );
}

/** A free TCP port on loopback. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
