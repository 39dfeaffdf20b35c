/** The default reconnect backoff of informers (client-go's reflector: 800 ms doubling up to 30 s, jittered). */

/** Options of `exponentialBackoff`. */
export interface ExponentialBackoffOptions {
  initialMs?: number;
  maxMs?: number;
  /** Adds up to this fraction of the delay at random, so replicas do not retry in step (default 0.5). */
  jitter?: number;
  /** For tests: returns a number in [0, 1). */
  random?: () => number;
}

/**
 * A delay function for the informer's `delay` option: `initialMs · 2^(attempt-1)` plus jitter,
 * capped at `maxMs`. `attempt` counts consecutive failures from 1.
 */
export function exponentialBackoff(options: ExponentialBackoffOptions = {}): (attempt: number) => number {
  const initial = options.initialMs ?? 800;
  const max = options.maxMs ?? 30000;
  const jitter = options.jitter ?? 0.5;
  const random = options.random ?? Math.random;
  return (attempt) => {
    const base = Math.min(max, initial * 2 ** Math.max(0, Math.min(attempt - 1, 30)));
    // The cap holds with the jitter too: a reconnect never waits more than `maxMs`.
    return Math.round(Math.min(max, base * (1 + jitter * random())));
  };
}
