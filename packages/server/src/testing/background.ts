/**
 * The background controller as a child process for the end-to-end tests and the benchmark (started
 * from the current sources through `ts-hooks.ts`): ready once its informers synced, stopped
 * gracefully or killed (SIGKILL: a crash).
 */
import { type ChildProcess, fork } from "node:child_process";
import { fileURLToPath } from "node:url";

const HOOKS = fileURLToPath(new URL("./ts-hooks.ts", import.meta.url));
const ENTRY = fileURLToPath(new URL("./background-main.ts", import.meta.url));

/** A running background controller process. */
export interface BackgroundProcess {
  readonly pid: number;
  readonly metricsPort: number;
  /** The last 256 KiB of its output (JSON logs). */
  output(): string;
  /** Graceful stop (as SIGTERM); resolves with the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL. */
  kill(): Promise<void>;
}

/** Starts `kyverno-ts background` against a kubeconfig; resolves once it is ready. */
export function startBackground(options: {
  kubeconfig: string;
  identity: string;
  args?: string[];
  leaderTimings?: { leaseDurationMs: number; renewDeadlineMs: number; retryPeriodMs: number };
  execArgv?: string[];
  /**
   * Another entry module with the same IPC protocol (the benchmark's, running the built `dist`); it
   * runs without the TypeScript hooks.
   */
  entry?: string;
  /** How long to wait for it to be ready (default 120 s: a loaded machine starts slowly). */
  startTimeoutMs?: number;
}): Promise<BackgroundProcess> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  if (options.leaderTimings) env.KYVERNO_TS_LEADER_TIMINGS = JSON.stringify(options.leaderTimings);
  const child: ChildProcess = fork(
    options.entry ?? ENTRY,
    [
      "--kubeconfig",
      options.kubeconfig,
      "--identity",
      options.identity,
      "--metrics-port",
      "0",
      "--log-level",
      "debug",
      ...(options.args ?? []),
    ],
    {
      execArgv: [
        ...(options.entry
          ? ["--no-warnings"]
          : ["--experimental-transform-types", "--no-warnings", "--import", HOOKS]),
        ...(options.execArgv ?? []),
      ],
      stdio: ["ignore", "pipe", "pipe", "ipc"],
      env,
    },
  );
  let output = "";
  const keep = (chunk: Buffer): void => {
    output = (output + chunk.toString()).slice(-262_144);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`background controller did not start:\n${output}`));
    }, options.startTimeoutMs ?? 120_000);
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`background controller exited with ${code}:\n${output}`));
    });
    child.on("message", (m: unknown) => {
      const ready = m as { type?: string; metricsPort?: number };
      if (ready.type !== "ready") return;
      clearTimeout(timer);
      resolve({
        pid: child.pid ?? 0,
        metricsPort: ready.metricsPort ?? 0,
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
