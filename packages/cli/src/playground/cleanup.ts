/**
 * The playground's cleanup controller: `kyverno-ts cleanup` in process against the local API server,
 * its webhooks called on the playground's host. Cleanup policies, DeletingPolicies and the
 * `cleanup.kyverno.io/ttl` label work in the playground as in a cluster.
 */
import { runCleanupCommand } from "@kyverno-ts/server";

/** Options of `startPlaygroundCleanup`. */
export interface PlaygroundCleanupOptions {
  kubeconfigPath: string;
  /** The address the API server calls the webhooks on. */
  host: string;
  logger: {
    debug(fields: object, message: string): void;
    info(fields: object, message: string): void;
    warn(fields: object, message: string): void;
    error(fields: object, message: string): void;
  };
  /** Aborts a start still in progress. */
  signal?: AbortSignal;
}

/** A running cleanup controller. */
export interface PlaygroundCleanup {
  port: number;
  metricsPort: number;
  stop(): Promise<void>;
}

/** Starts the controller; resolves once it serves its webhooks, rejects when it cannot start. */
export async function startPlaygroundCleanup(options: PlaygroundCleanupOptions): Promise<PlaygroundCleanup> {
  const stop = new AbortController();
  const onAbort = (): void => stop.abort();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  let errors = "";
  let ready: { port: number; metricsPort: number } | undefined;
  let markReady: () => void = () => {};
  const started = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  const exited = runCleanupCommand({
    args: [
      "--kubeconfig",
      options.kubeconfigPath,
      "--serverIP",
      options.host,
      "--cleanupServerPort",
      "0",
      "--metricsPort",
      "0",
      "--identity",
      "playground",
      "--ttlReconciliationInterval",
      "10s",
    ],
    stdout: { write: () => true },
    stderr: {
      write: (text: string) => {
        errors += text;
        return true;
      },
    },
    logger: options.logger,
    signal: stop.signal,
    onReady: (info) => {
      ready = info;
      markReady();
    },
  });
  const status = await Promise.race([started.then(() => undefined), exited]);
  if (status !== undefined || ready === undefined) {
    stop.abort();
    throw new Error(`the cleanup controller did not start (exit ${status ?? "?"}): ${errors.trim()}`);
  }
  const { port, metricsPort } = ready;
  return {
    port,
    metricsPort,
    async stop() {
      options.signal?.removeEventListener("abort", onAbort);
      stop.abort();
      await exited;
    },
  };
}
