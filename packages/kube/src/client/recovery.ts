/**
 * Knowing when the API server answers again. After a connection failure informers wait out a backoff
 * that grows to 30 s; without this, an outage of 35 s keeps them away for up to 30 s more after the
 * server is back. While anyone waits, one probe per client asks the server every `intervalMs`, and the
 * first answer releases every waiter at once.
 */
import { type Clock, sleep } from "@kyverno-ts/api";

/** Options of `createRecoveryProbe`. */
export interface RecoveryProbeOptions {
  /** True when the server answered (any HTTP status); false when it could not be reached. */
  probe(): Promise<boolean>;
  clock: Clock;
  intervalMs: number;
}

/** Waiters for the server to answer again; see `createRecoveryProbe`. */
export interface RecoveryProbe {
  /** Resolves `true` once a probe got an answer, `false` if `signal` aborts first. */
  wait(signal?: AbortSignal): Promise<boolean>;
}

/** Creates the probe; it runs only while someone waits. */
export function createRecoveryProbe(options: RecoveryProbeOptions): RecoveryProbe {
  const waiters = new Set<(answered: boolean) => void>();
  let probing = false;

  const loop = async (): Promise<void> => {
    probing = true;
    try {
      while (waiters.size > 0) {
        await sleep(options.clock, options.intervalMs);
        if (waiters.size === 0) break;
        let answered = false;
        try {
          answered = await options.probe();
        } catch {
          answered = false;
        }
        if (answered) {
          for (const release of [...waiters]) release(true);
          waiters.clear();
        }
      }
    } finally {
      probing = false;
    }
  };

  return {
    wait(signal) {
      if (signal?.aborted === true) return Promise.resolve(false);
      return new Promise<boolean>((resolve) => {
        const release = (answered: boolean): void => {
          waiters.delete(release);
          signal?.removeEventListener("abort", onAbort);
          resolve(answered);
        };
        const onAbort = (): void => release(false);
        signal?.addEventListener("abort", onAbort, { once: true });
        waiters.add(release);
        if (!probing) void loop();
      });
    },
  };
}
