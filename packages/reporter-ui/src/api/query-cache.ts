/**
 * Shares identical API calls between the views that make them at the same time (the dashboard's
 * totals and charts both read `/v2/findings`): one request per key while it runs and for a
 * second after it answered. A request is aborted once no view waits for it any more.
 *
 * A call can also start before any view asks for it (`preload`: the current page's requests, sent
 * while the app renders its first frame). It is kept, answer or failure, until the first view that
 * asks adopts it, or for ten seconds.
 */
import type { Call } from "./client.ts";

/** One API call of a view with the key that identifies it (build it from every argument). */
export interface QuerySpec<T> {
  readonly key: string;
  readonly call: Call<T>;
}

interface Entry {
  promise: Promise<unknown>;
  controller: AbortController;
  users: number;
  state: "running" | "answered" | "failed";
  /** Preloaded and not yet asked for by a view: never aborted or dropped until adopted or expired. */
  held: boolean;
}

/** How long an answer is reused, in milliseconds. */
const REUSE_MS = 1000;

/** How long a preloaded call waits for a view to adopt it, in milliseconds. */
const HOLD_MS = 10_000;

/** Performance marks of preloaded calls (`detail`: the key), for tests and the dashboard benchmark. */
export const PRELOAD_MARKS = { preloaded: "query-preload", adopted: "query-adopt" } as const;

const entries = new Map<string, Entry>();

function drop(key: string, entry: Entry): void {
  if (entries.get(key) === entry) entries.delete(key);
}

/** Drops a settled entry nobody holds: an answer after {@link REUSE_MS}, a failure at once. */
function expire(key: string, entry: Entry): void {
  if (entry.held || entry.state === "running") return;
  if (entry.state === "failed") drop(key, entry);
  else setTimeout(() => drop(key, entry), REUSE_MS);
}

function start(key: string, call: Call<unknown>, held: boolean): Entry {
  const controller = new AbortController();
  const entry: Entry = { promise: call(controller.signal), controller, users: 0, state: "running", held };
  entry.promise.then(
    () => {
      entry.state = "answered";
      expire(key, entry);
    },
    () => {
      entry.state = "failed";
      expire(key, entry);
    },
  );
  entries.set(key, entry);
  return entry;
}

/** Starts the call of `key` unless it runs already, and keeps it for the first view that asks. */
export function preload<T>(key: string, call: Call<T>): void {
  if (entries.has(key)) return;
  const entry = start(key, call, true);
  performance.mark(PRELOAD_MARKS.preloaded, { detail: key });
  setTimeout(() => {
    if (!entry.held) return;
    entry.held = false;
    if (entry.state === "running") entry.controller.abort();
    drop(key, entry);
  }, HOLD_MS);
}

/** The answer of the shared call of `query`, for a call made of other calls (aborted with `signal`). */
export async function shared<T>(query: QuerySpec<T>, signal?: AbortSignal): Promise<T> {
  const { promise, release } = acquire(query.key, query.call);
  signal?.addEventListener("abort", release, { once: true });
  try {
    return await promise;
  } finally {
    signal?.removeEventListener("abort", release);
    release();
  }
}

/** A subscription to the shared call of `key`; `release` when the view no longer needs it. */
export function acquire<T>(key: string, call: Call<T>): { promise: Promise<T>; release(): void } {
  const shared = entries.get(key) ?? start(key, call, false);
  shared.users++;
  if (shared.held) {
    // Adopted: from now on the entry lives like any other.
    shared.held = false;
    performance.mark(PRELOAD_MARKS.adopted, { detail: key });
    expire(key, shared);
  }
  let released = false;
  return {
    promise: shared.promise as Promise<T>,
    release() {
      if (released) return;
      released = true;
      shared.users--;
      if (shared.users === 0 && shared.state === "running") {
        shared.controller.abort();
        drop(key, shared);
      }
    },
  };
}
