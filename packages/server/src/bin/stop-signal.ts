/** How the long-running commands learn to stop: the caller's signal, or the first SIGINT / SIGTERM. */

/**
 * `signal` when the caller gave one (tests, embedding); otherwise a signal aborted by the first
 * SIGINT or SIGTERM. Call `dispose` once stopped so the process handlers do not pile up.
 */
export function stopSignal(signal: AbortSignal | undefined): { signal: AbortSignal; dispose: () => void } {
  if (signal) return { signal, dispose: () => {} };
  const controller = new AbortController();
  const stop = (): void => controller.abort();
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  return {
    signal: controller.signal,
    dispose: () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
    },
  };
}
