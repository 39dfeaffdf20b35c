/**
 * `createInformer`: a list+watch loop with a local cache, written over `KubeClient.watch` rather than
 * client-node's `ListWatch`/`makeInformer`, because `ListWatch` does not ask for BOOKMARKs (so a quiet
 * resource resumes from a stale version and relists after compaction), stops for good on any error
 * other than 410 or a timeout, lists without pagination, has no "synced" signal and does not go through
 * the client's rate limiter or query metrics. This loop:
 *
 * - lists (paginated), replaces the cache and reports the difference as add/update/delete events;
 * - watches from the list's resourceVersion with BOOKMARKs, keeping the newest version it has seen;
 * - after a dropped or closed connection, watches again from that version (no relist, no replayed events);
 * - on 410 Gone/Expired (at open or as an ERROR event) relists;
 * - after a failure, waits `delay(attempt)` (injected, so tests do not sleep) before retrying.
 */

import { systemClock } from "@kyverno-ts/api";
import type { ObjectHeader } from "../client/types.js";
import { exponentialBackoff } from "./backoff.js";
import { type InformerState, runInformer } from "./informer-loop.js";
import type { Informer, InformerOptions, TransformingInformerOptions } from "./informer-types.js";
import { createObjectStore } from "./store.js";

export type {
  Informer,
  InformerError,
  InformerHandlers,
  InformerOptions,
  TransformingInformerOptions,
} from "./informer-types.js";

/** The object itself: the cache of an informer without a transform keeps what was decoded. */
const itself = <T>(object: unknown): T => object as T;

/**
 * Creates an informer for `apiVersion`/`kind`; nothing happens until `start()`. With a transform, its
 * cache keeps `T` made of each `R` the API server sends.
 */
export function createInformer<T extends ObjectHeader, R extends ObjectHeader>(
  options: TransformingInformerOptions<T, R>,
): Informer<T>;
export function createInformer<T extends ObjectHeader>(options: InformerOptions): Informer<T>;
export function createInformer<T extends ObjectHeader, R extends ObjectHeader>(
  options: InformerOptions & { transform?: (object: R) => T },
): Informer<T> {
  const state: InformerState<T, R> = {
    options,
    transform: options.transform ?? itself,
    client: options.client,
    clock: options.clock ?? systemClock,
    delay: options.delay ?? exponentialBackoff(),
    pageSize: options.pageSize ?? 500,
    store: createObjectStore<T>(),
    handlers: {
      add: new Set(),
      update: new Set(),
      delete: new Set(),
      error: new Set(),
      synced: new Set(),
    },
    resourceVersion: undefined,
    synced: false,
    stopWatch: undefined,
  };
  const { store, handlers } = state;
  let running: { abort: AbortController; loop: Promise<void>; synced: Promise<void> } | undefined;

  return {
    on(event, handler) {
      const set = handlers[event] as Set<typeof handler>;
      set.add(handler);
      return () => {
        set.delete(handler);
      };
    },
    start() {
      if (running !== undefined) return running.synced;
      const abort = new AbortController();
      let markSynced: () => void = () => undefined;
      const syncedOrStopped = new Promise<void>((resolve) => {
        markSynced = resolve;
      });
      if (state.synced) markSynced();
      abort.signal.addEventListener("abort", () => markSynced(), { once: true });
      const loop = runInformer(state, abort.signal, markSynced);
      running = { abort, loop, synced: syncedOrStopped };
      return syncedOrStopped;
    },
    async stop() {
      const current = running;
      if (current === undefined) return;
      current.abort.abort();
      state.stopWatch?.();
      await current.loop;
      running = undefined;
    },
    list: (namespace) => store.list(namespace),
    get: (namespace, name) => store.get(namespace ?? "", name),
    hasSynced: () => state.synced,
    lastResourceVersion: () => state.resourceVersion ?? "",
  };
}
