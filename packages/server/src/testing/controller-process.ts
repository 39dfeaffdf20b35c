/**
 * A controller as a child process for the end-to-end tests and benchmarks (the admission replicas of
 * `replicas.ts`, the background controller of `background.ts`): forked from the current sources
 * through `ts-hooks.ts` (or a built entry), its output kept for failure messages, ready when it says
 * so over IPC, stopped gracefully or killed.
 */
import { type ChildProcess, fork } from "node:child_process";
import { fileURLToPath } from "node:url";

const HOOKS = fileURLToPath(new URL("./ts-hooks.ts", import.meta.url));

/** Options of `forkController`. */
export interface ControllerProcessOptions {
  /** What the process is, in errors (`replica kyverno-admission-0`, `background controller`). */
  name: string;
  /** The entry module. */
  entry: string;
  /** `false`: a built entry, run without the TypeScript hooks. */
  typescript: boolean;
  kubeconfig: string;
  /** Its leader election identity (`--identity`). */
  identity: string;
  /** Flags after the shared ones (`--kubeconfig`, `--identity`, `--metrics-port 0`, `--log-level debug`). */
  args: string[];
  /** Leader election timings instead of the controller's own (`KYVERNO_TS_LEADER_TIMINGS`). */
  leaderTimings?: { leaseDurationMs: number; renewDeadlineMs: number; retryPeriodMs: number };
  execArgv?: string[];
  /** How much of its latest output is kept. */
  outputBytes: number;
  /** How long to wait for its `ready` message. */
  startTimeoutMs: number;
}

/** The `ready` message a controller entry sends once it serves. */
export interface ReadyMessage {
  type: "ready";
  port?: number;
  metricsPort?: number;
}

/** A started controller process. */
export interface ControllerProcess {
  readonly child: ChildProcess;
  /** Its `ready` message. */
  readonly ready: ReadyMessage;
  /** Its latest output (JSON logs). */
  output(): string;
  /** Graceful stop (as SIGTERM); resolves with the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL: a crash, nothing is handed over. */
  kill(): Promise<void>;
}

/** Forks the controller; resolves once it is ready, rejects when it exits or times out first. */
export function forkController(options: ControllerProcessOptions): Promise<ControllerProcess> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  if (options.leaderTimings) env.KYVERNO_TS_LEADER_TIMINGS = JSON.stringify(options.leaderTimings);
  const args = [
    "--kubeconfig",
    options.kubeconfig,
    "--identity",
    options.identity,
    "--metrics-port",
    "0",
    "--log-level",
    "debug",
    ...options.args,
  ];
  const child = fork(options.entry, args, {
    execArgv: [
      ...(options.typescript
        ? ["--experimental-transform-types", "--no-warnings", "--import", HOOKS]
        : ["--no-warnings"]),
      ...(options.execArgv ?? []),
    ],
    stdio: ["ignore", "pipe", "pipe", "ipc"],
    env,
  });
  let output = "";
  const keep = (chunk: Buffer): void => {
    output = (output + chunk.toString()).slice(-options.outputBytes);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${options.name} did not start:\n${output}`));
    }, options.startTimeoutMs);
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${options.name} exited with ${code}:\n${output}`));
    });
    child.on("message", (m: unknown) => {
      const ready = m as ReadyMessage;
      if (ready.type !== "ready") return;
      clearTimeout(timer);
      resolve({
        child,
        ready,
        output: () => output,
        async stop() {
          if (child.connected) child.send({ type: "stop" });
          return exited;
        },
        async kill() {
          child.kill("SIGKILL");
          await exited;
        },
      });
    });
  });
}
