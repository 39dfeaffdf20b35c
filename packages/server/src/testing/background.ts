/**
 * The background controller as a child process for the end-to-end tests and the benchmark (started
 * from the current sources through `ts-hooks.ts`): ready once its informers synced, stopped
 * gracefully or killed (SIGKILL: a crash).
 */
import { fileURLToPath } from "node:url";
// ".ts": scripts/bench-background.ts imports this file with plain node (no module hooks).
import { forkController } from "./controller-process.ts";

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
export async function startBackground(options: {
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
  const started = await forkController({
    name: "background controller",
    entry: options.entry ?? ENTRY,
    typescript: options.entry === undefined,
    kubeconfig: options.kubeconfig,
    identity: options.identity,
    args: options.args ?? [],
    ...(options.leaderTimings ? { leaderTimings: options.leaderTimings } : {}),
    ...(options.execArgv ? { execArgv: options.execArgv } : {}),
    outputBytes: 262_144,
    startTimeoutMs: options.startTimeoutMs ?? 120_000,
  });
  return {
    pid: started.child.pid ?? 0,
    metricsPort: started.ready.metricsPort ?? 0,
    output: started.output,
    stop: started.stop,
    kill: started.kill,
  };
}
