/**
 * Shares identical API calls between the views that make them at the same time (the dashboard's
 * totals and charts both read `/v2/findings`): one request per key while it runs and for a
 * second after it answered. A request is aborted once no view waits for it any more.
 */
import type { Call } from "./client.ts";

interface Entry {
  promise: Promise<unknown>;
  controller: AbortController;
  users: number;
  settled: boolean;
}

/** How long an answer is reused, in milliseconds. */
const REUSE_MS = 1000;

const entries = new Map<string, Entry>();

/** A subscription to the shared call of `key`; `release` when the view no longer needs it. */
export function acquire<T>(key: string, call: Call<T>): { promise: Promise<T>; release(): void } {
  let entry = entries.get(key);
  if (!entry) {
    const controller = new AbortController();
    const created: Entry = { promise: call(controller.signal), controller, users: 0, settled: false };
    const forget = () => {
      if (entries.get(key) === created) entries.delete(key);
    };
    created.promise.then(
      () => {
        created.settled = true;
        setTimeout(forget, REUSE_MS);
      },
      () => {
        created.settled = true;
        forget();
      },
    );
    entries.set(key, created);
    entry = created;
  }
  const shared = entry;
  shared.users++;
  let released = false;
  return {
    promise: shared.promise as Promise<T>,
    release() {
      if (released) return;
      released = true;
      shared.users--;
      if (shared.users === 0 && !shared.settled) {
        shared.controller.abort();
        if (entries.get(key) === shared) entries.delete(key);
      }
    },
  };
}
