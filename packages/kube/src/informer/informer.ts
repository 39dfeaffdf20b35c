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

import { type Clock, sleep, systemClock } from "@kyverno-ts/api";
import type { KubeClient } from "../client/client.js";
import type { ApiFailure, ApiResult, ObjectHeader, WatchEvent, WatchQuery } from "../client/types.js";
import { exponentialBackoff } from "./backoff.js";
import { createObjectStore } from "./store.js";

/** Options of `createInformer`. */
export interface InformerOptions {
  client: KubeClient;
  apiVersion: string;
  kind: string;
  /** Watch one namespace only (default: all). */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Milliseconds to wait before retry `attempt` (1, 2, …) after a failure; default `exponentialBackoff()`. */
  delay?: (attempt: number) => number;
  /** Items per list page (default 500). */
  pageSize?: number;
  /** Server-side watch timeout; default a random 300–600 s per watch, as client-go. */
  watchTimeoutSeconds?: number;
  clock?: Clock;
}

/** Reported to `error` handlers; the informer keeps going after each (it retries until stopped). */
export type InformerError =
  | { source: "list" | "watch"; failure: ApiFailure; attempt: number; retryInMs: number }
  | { source: "handler"; event: "add" | "update" | "delete" | "synced"; error: unknown };

/** The handler signature of each informer event. */
export interface InformerHandlers<T> {
  add: (object: T) => void;
  update: (object: T, old: T) => void;
  delete: (object: T) => void;
  error: (error: InformerError) => void;
  /** Once, after the first list is in the cache. */
  synced: () => void;
}

/** A cached, watched view of one kind; create with `createInformer`. Do not mutate the objects it hands out. */
export interface Informer<T> {
  /** Registers a handler; returns a function that removes it. Register before `start()` to see every add. */
  on<E extends keyof InformerHandlers<T>>(event: E, handler: InformerHandlers<T>[E]): () => void;
  /** Starts listing and watching; resolves once synced (or when stopped first). */
  start(): Promise<void>;
  /** Stops the watch and the retries; resolves when the loop has ended. The cache is kept. */
  stop(): Promise<void>;
  /** Cached objects, of one namespace when given. */
  list(namespace?: string): T[];
  /** One cached object; `namespace` is `""` or `undefined` for cluster-scoped kinds. */
  get(namespace: string | undefined, name: string): T | undefined;
  /** True once the first list has been cached. */
  hasSynced(): boolean;
  /** The newest resourceVersion seen (list, event or bookmark); empty before the first list. */
  lastResourceVersion(): string;
}

type Handlers<T> = { [E in keyof InformerHandlers<T>]: Set<InformerHandlers<T>[E]> };

type WatchOutcome =
  | { next: "relist" }
  | { next: "stopped" }
  | { next: "watch"; progressed: boolean; failure?: ApiFailure };

const QUICK_CLOSE_MS = 1000;

/** A failure that says the server was not reached or not ready (no answer, 5xx), not that it refused. */
function unreachable(failure: ApiFailure | undefined): boolean {
  return failure !== undefined && (failure.status === 0 || failure.status >= 500);
}

/** Creates an informer for `apiVersion`/`kind`; nothing happens until `start()`. */
export function createInformer<T extends ObjectHeader>(options: InformerOptions): Informer<T> {
  const { client } = options;
  const clock = options.clock ?? systemClock;
  const delay = options.delay ?? exponentialBackoff();
  const pageSize = options.pageSize ?? 500;
  const store = createObjectStore<T>();
  const handlers: Handlers<T> = {
    add: new Set(),
    update: new Set(),
    delete: new Set(),
    error: new Set(),
    synced: new Set(),
  };
  let resourceVersion: string | undefined;
  let synced = false;
  let running: { abort: AbortController; loop: Promise<void>; synced: Promise<void> } | undefined;
  let stopWatch: (() => void) | undefined;

  const emit = <E extends keyof InformerHandlers<T>>(
    event: E,
    ...args: Parameters<InformerHandlers<T>[E]>
  ) => {
    for (const handler of handlers[event]) {
      try {
        (handler as (...a: Parameters<InformerHandlers<T>[E]>) => void)(...args);
      } catch (error) {
        if (event === "error") continue;
        const source = { source: "handler" as const, event: event as "add" | "update" | "delete" | "synced" };
        for (const onError of handlers.error) {
          try {
            onError({ ...source, error });
          } catch {
            // an error handler that throws has nowhere left to report to
          }
        }
      }
    }
  };

  const query = <Q extends { signal?: AbortSignal }>(extra: Q): Q & WatchQuery => {
    const q: Q & WatchQuery = { ...extra, apiVersion: options.apiVersion, kind: options.kind };
    if (options.namespace !== undefined) q.namespace = options.namespace;
    if (options.labelSelector !== undefined) q.labelSelector = options.labelSelector;
    if (options.fieldSelector !== undefined) q.fieldSelector = options.fieldSelector;
    return q;
  };

  /** Lists every page; a 410 on a continue token restarts the list unpaginated, as client-go does. */
  const listAll = async (
    signal: AbortSignal,
  ): Promise<ApiResult<{ items: T[]; resourceVersion: string }>> => {
    const items: T[] = [];
    let token: string | undefined;
    let limit: number | undefined = pageSize;
    for (;;) {
      const page = await client.list<T>({
        ...query({ signal }),
        ...(limit === undefined ? {} : { limit }),
        ...(token === undefined ? {} : { continue: token }),
      });
      if (!page.ok) {
        if (page.status === 410 && token !== undefined) {
          items.length = 0;
          token = undefined;
          limit = undefined;
          continue;
        }
        return page;
      }
      items.push(...page.value.items);
      token = page.value.metadata.continue;
      if (token === undefined || token === "")
        return {
          ok: true,
          status: 200,
          value: { items, resourceVersion: page.value.metadata.resourceVersion },
        };
    }
  };

  const applyList = (items: T[]): void => {
    const diff = store.replace(items);
    for (const object of diff.added) emit("add", object);
    for (const { object, old } of diff.updated) emit("update", object, old);
    for (const object of diff.deleted) emit("delete", object);
  };

  const onEvent = (event: WatchEvent<T>, state: { gone: boolean; failure?: ApiFailure; events: number }) => {
    if (event.type === "ERROR") {
      if (event.failure.status === 410) state.gone = true;
      else state.failure = event.failure;
      stopWatch?.();
      return;
    }
    state.events++;
    const object = event.object;
    const rv = object.metadata?.resourceVersion;
    if (event.type === "ADDED" || event.type === "MODIFIED") {
      const old = store.put(object);
      if (old === undefined) emit("add", object);
      else emit("update", object, old);
    } else if (event.type === "DELETED") {
      store.remove(object);
      emit("delete", object);
    }
    if (rv !== undefined && rv !== "") resourceVersion = rv;
  };

  const watchOnce = async (from: string, signal: AbortSignal): Promise<WatchOutcome> => {
    const state: { gone: boolean; failure?: ApiFailure; events: number } = { gone: false, events: 0 };
    const timeoutSeconds = options.watchTimeoutSeconds ?? Math.floor(300 * (1 + Math.random()));
    const opened = await client.watch<T>(query({ signal, resourceVersion: from, timeoutSeconds }), (event) =>
      onEvent(event, state),
    );
    if (signal.aborted) {
      if (opened.ok) opened.value.stop();
      return { next: "stopped" };
    }
    if (!opened.ok) {
      if (opened.status === 410) return { next: "relist" };
      return { next: "watch", progressed: false, failure: opened };
    }
    const openedAt = clock.now();
    stopWatch = opened.value.stop;
    const end = await opened.value.done;
    stopWatch = undefined;
    if (signal.aborted) return { next: "stopped" };
    if (state.gone) return { next: "relist" };
    const progressed = state.events > 0 || clock.now() - openedAt >= QUICK_CLOSE_MS;
    if (state.failure !== undefined) return { next: "watch", progressed, failure: state.failure };
    if (end.reason === "failed") return { next: "watch", progressed, failure: end.failure };
    return { next: "watch", progressed };
  };

  const run = async (signal: AbortSignal, onSynced: () => void): Promise<void> => {
    let attempt = 0;
    const retry = async (source: "list" | "watch", failure: ApiFailure | undefined): Promise<void> => {
      attempt++;
      const retryInMs = Math.max(0, delay(attempt));
      if (failure !== undefined) emit("error", { source, failure, attempt, retryInMs });
      if (!unreachable(failure)) {
        await sleep(clock, retryInMs, signal);
        return;
      }
      // The server could not be reached: retry when its backoff ends or as soon as it answers again.
      const wake = new AbortController();
      const stop = (): void => wake.abort();
      signal.addEventListener("abort", stop, { once: true });
      await Promise.race([sleep(clock, retryInMs, wake.signal), client.recovered(wake.signal)]);
      signal.removeEventListener("abort", stop);
      wake.abort();
    };
    while (!signal.aborted) {
      if (resourceVersion === undefined) {
        const listed = await listAll(signal);
        if (signal.aborted) break;
        if (!listed.ok) {
          await retry("list", listed);
          continue;
        }
        attempt = 0;
        applyList(listed.value.items);
        resourceVersion = listed.value.resourceVersion;
        if (!synced) {
          synced = true;
          onSynced();
          emit("synced");
        }
      }
      const outcome = await watchOnce(resourceVersion, signal);
      if (outcome.next === "stopped") break;
      if (outcome.next === "relist") {
        resourceVersion = undefined;
        continue;
      }
      if (outcome.progressed) attempt = 0;
      if (outcome.failure !== undefined || !outcome.progressed) await retry("watch", outcome.failure);
    }
  };

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
      if (synced) markSynced();
      abort.signal.addEventListener("abort", () => markSynced(), { once: true });
      const loop = run(abort.signal, markSynced);
      running = { abort, loop, synced: syncedOrStopped };
      return syncedOrStopped;
    },
    async stop() {
      const current = running;
      if (current === undefined) return;
      current.abort.abort();
      stopWatch?.();
      await current.loop;
      running = undefined;
    },
    list: (namespace) => store.list(namespace),
    get: (namespace, name) => store.get(namespace ?? "", name),
    hasSynced: () => synced,
    lastResourceVersion: () => resourceVersion ?? "",
  };
}
