/**
 * Waiting on the injected clock.
 */
import type { Clock } from "../../clock.js";

/**
 * Resolves after `ms` on `clock` (backoff between retries, keepalive intervals), or at once when `signal`
 * aborts; never rejects.
 */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      signal?.removeEventListener("abort", abort);
      resolve();
    };
    const handle = clock.setTimeout(done, ms);
    const abort = (): void => {
      clock.clearTimeout(handle);
      done();
    };
    signal?.addEventListener("abort", abort, { once: true });
  });
}
