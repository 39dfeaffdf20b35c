/** A deduplicating queue of controller work run off the request path (after the response is sent). */

/** Keyed work items; adding a key already queued is a no-op. */
export interface WorkQueue {
  add(key: string, work: () => void): void;
  /** Resolves when nothing is queued (for tests and shutdown). */
  idle(): Promise<void>;
  stop(): void;
}

/** Creates a queue that drains on `setImmediate`; a failing item is reported to `onError` and dropped. */
export function createWorkQueue(onError: (error: unknown) => void = () => {}): WorkQueue {
  const pending = new Map<string, () => void>();
  let scheduled: NodeJS.Immediate | undefined;
  let stopped = false;
  let waiters: Array<() => void> = [];
  const drain = (): void => {
    scheduled = undefined;
    let rounds = 0;
    while (pending.size > 0 && !stopped && rounds++ < 10000) {
      const [key, work] = pending.entries().next().value as [string, () => void];
      pending.delete(key);
      try {
        work();
      } catch (e) {
        onError(e);
      }
    }
    if (pending.size === 0) {
      const w = waiters;
      waiters = [];
      for (const resolve of w) resolve();
    } else schedule();
  };
  const schedule = (): void => {
    if (scheduled === undefined && !stopped) scheduled = setImmediate(drain);
  };
  return {
    add(key, work) {
      if (stopped) return;
      if (!pending.has(key)) pending.set(key, work);
      schedule();
    },
    idle: () =>
      pending.size === 0 && scheduled === undefined
        ? Promise.resolve()
        : new Promise((resolve) => waiters.push(resolve)),
    stop() {
      stopped = true;
      pending.clear();
      if (scheduled !== undefined) clearImmediate(scheduled);
      scheduled = undefined;
      for (const resolve of waiters) resolve();
      waiters = [];
    },
  };
}
