// Process plumbing of the reporter benchmarks: start a role of roles.ts as a child process, read
// its JSON lines, wait for HTTP endpoints, pick free ports.
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { createInterface } from "node:readline";

const SCRIPT = new URL("../bench-reporter-watch.ts", import.meta.url).pathname;

/** A running role. */
export interface RoleProcess {
  child: ChildProcess;
  pid: number;
  /** The next JSON line the role prints. */
  next<T>(): Promise<T>;
  /** The last lines of its standard error (for failures). */
  stderrTail(): string;
  /** Its standard error so far (the first MiB). */
  stderrAll(): string;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
}

const CLI = new URL("../../packages/cli/dist/bin.js", import.meta.url).pathname;

/** Starts `bench-reporter-watch.ts --role <role> …args` (its stdin stays open until `child.stdin.end()`). */
export function startRole(role: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): RoleProcess {
  // The young generation the CLI gives its server commands (packages/cli: SERVER_SEMI_SPACE_MIB), so
  // the floors' peak RSS compares with the reporter's.
  return startProcess(role, ["--max-semi-space-size=4", SCRIPT, "--role", role, ...args], env);
}

/**
 * Starts `kyverno-ts <args>` from the built CLI, as in production (the CLI re-runs itself in the same
 * process with the server commands' V8 flags).
 */
export function startCli(args: readonly string[], env: NodeJS.ProcessEnv = {}): RoleProcess {
  return startProcess(args[0] ?? "kyverno-ts", [CLI, ...args], env);
}

function startProcess(role: string, argv: readonly string[], env: NodeJS.ProcessEnv): RoleProcess {
  const child = spawn(process.execPath, argv, {
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
  const lines: string[] = [];
  const waiters: ((line: string | undefined) => void)[] = [];
  let closed = false;
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on("line", (line) => {
    if (!line.startsWith("{")) return;
    const waiter = waiters.shift();
    if (waiter) waiter(line);
    else lines.push(line);
  });
  let tail = "";
  let all = "";
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (chunk: string) => {
    tail = (tail + chunk).slice(-4000);
    if (all.length < 1 << 20) all += chunk;
  });
  const exited = new Promise<number | null>((resolve) => {
    child.on("exit", (code) => {
      closed = true;
      for (const w of waiters.splice(0)) w(undefined);
      resolve(code);
    });
  });
  return {
    child,
    pid: child.pid ?? 0,
    async next<T>() {
      const line =
        lines.shift() ??
        (closed ? undefined : await new Promise<string | undefined>((resolve) => waiters.push(resolve)));
      if (line === undefined) throw new Error(`${role} exited without output:\n${tail}`);
      return JSON.parse(line) as T;
    },
    stderrTail: () => tail,
    stderrAll: () => all,
    exited,
  };
}

/** Runs a role to completion and returns its one JSON line. */
export async function runRoleOnce<T>(role: string, args: readonly string[]): Promise<T> {
  const p = startRole(role, args);
  p.child.stdin?.end();
  const out = await p.next<T>();
  const code = await p.exited;
  if (code !== 0) throw new Error(`${role} exited ${code}:\n${p.stderrTail()}`);
  return out;
}

/** A TCP port free right now on 127.0.0.1. */
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

/** Polls `url` every `everyMs` until it answers 200; the ms it took. Throws when `alive()` turns false. */
export async function until200(url: string, alive: () => boolean, everyMs = 50): Promise<void> {
  for (;;) {
    const res = await fetch(url).catch(() => undefined);
    await res?.arrayBuffer();
    if (res?.status === 200) return;
    if (!alive()) throw new Error(`process died before ${url} answered 200`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** min–max of some numbers, formatted with `digits`. */
export function range(values: readonly number[], digits = 0): string {
  if (values.length === 0) return "-";
  const lo = Math.min(...values).toFixed(digits);
  const hi = Math.max(...values).toFixed(digits);
  return lo === hi ? lo : `${lo}–${hi}`;
}
