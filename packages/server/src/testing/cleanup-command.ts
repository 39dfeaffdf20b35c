/**
 * The cleanup controller as the end-to-end suites run it: `kyverno-ts cleanup` in this process
 * (`runCleanupCommand`) against a kubeconfig, serving its webhooks and metrics on free ports, stopped
 * through an abort signal.
 */
import { runCleanupCommand } from "../bin/cleanup.js";
import type { Logger } from "../logger.js";

/** A running in-process cleanup controller; see `startCleanupCommand`. */
export interface CleanupCommand {
  /** The webhook server's port. */
  readonly port: number;
  /** The metrics server's port. */
  readonly metricsPort: number;
  /** The command's exit status (0 after a clean stop); settles once `stop` was called. */
  readonly exited: Promise<number>;
  /** Aborts the command; resolves with its exit status. */
  stop(): Promise<number>;
}

/**
 * Starts `kyverno-ts cleanup --serverIP 127.0.0.1` (identity `kyverno-cleanup-0`, ports chosen by the
 * system) with `logger`; resolves once its webhooks and metrics are served, rejects when it exits first.
 */
export async function startCleanupCommand(options: {
  kubeconfig: string;
  logger: Logger;
}): Promise<CleanupCommand> {
  const abort = new AbortController();
  let ready: (info: { port: number; metricsPort: number }) => void = () => {};
  const served = new Promise<{ port: number; metricsPort: number }>((resolve) => {
    ready = resolve;
  });
  const exited = runCleanupCommand({
    args: [
      "--kubeconfig",
      options.kubeconfig,
      "--serverIP",
      "127.0.0.1",
      "--cleanupServerPort",
      "0",
      "--metricsPort",
      "0",
      "--identity",
      "kyverno-cleanup-0",
    ],
    stdout: { write: () => true },
    stderr: { write: (text: string) => process.stderr.write(text) },
    signal: abort.signal,
    logger: options.logger,
    onReady: (info) => ready(info),
  });
  let isReady = false;
  const info = await Promise.race([
    served,
    exited.then((code) => {
      if (!isReady) throw new Error(`the cleanup controller exited with ${code} before it was ready`);
      return served;
    }),
  ]);
  isReady = true;
  return {
    ...info,
    exited,
    stop() {
      abort.abort();
      return exited;
    },
  };
}
