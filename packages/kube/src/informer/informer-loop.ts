/**
 * The informer's list+watch loop as module functions over one per-informer `InformerState`: listing
 * page by page into the cache, watching from the newest resourceVersion, handing events to the
 * handlers, and waiting before a retry (woken early once an unreachable server answers again).
 */
import { type Clock, sleep } from "@kyverno-ts/api";
import type { KubeClient } from "../client/client.js";
import type { ApiFailure, ApiResult, ObjectHeader, WatchEvent, WatchQuery } from "../client/types.js";
import type { InformerHandlers, InformerOptions } from "./informer-types.js";
import type { ObjectStore } from "./store.js";

/** The handlers registered for each event. */
export type Handlers<T> = { [E in keyof InformerHandlers<T>]: Set<InformerHandlers<T>[E]> };

/**
 * What one informer holds while it runs: `T` is what its cache keeps of each object, `R` the objects as
 * decoded (see `TransformingInformerOptions`).
 */
export interface InformerState<T, R = T> {
  readonly options: InformerOptions;
  /** What the cache keeps of a decoded object (the object itself without a transform). */
  readonly transform: (object: R) => T;
  readonly client: KubeClient;
  readonly clock: Clock;
  readonly delay: (attempt: number) => number;
  readonly pageSize: number;
  readonly store: ObjectStore<T>;
  readonly handlers: Handlers<T>;
  /** The newest resourceVersion seen; undefined: list (again). */
  resourceVersion: string | undefined;
  synced: boolean;
  /** Ends the open watch. */
  stopWatch: (() => void) | undefined;
}

type WatchOutcome =
  | { next: "relist" }
  | { next: "stopped" }
  | { next: "watch"; progressed: boolean; failure?: ApiFailure };

const QUICK_CLOSE_MS = 1000;

/** A failure that says the server was not reached or not ready (no answer, 5xx), not that it refused. */
function unreachable(failure: ApiFailure | undefined): boolean {
  return failure !== undefined && (failure.status === 0 || failure.status >= 500);
}

/** Calls the handlers of `event`; a handler that throws is reported to the error handlers. */
export function emit<T, E extends keyof InformerHandlers<T>>(
  state: { readonly handlers: Handlers<T> },
  event: E,
  ...args: Parameters<InformerHandlers<T>[E]>
): void {
  const { handlers } = state;
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
}

/** The informer's kind, namespace and selectors, with `extra`. */
function query<Q extends { signal?: AbortSignal }>(options: InformerOptions, extra: Q): Q & WatchQuery {
  const q: Q & WatchQuery = { ...extra, apiVersion: options.apiVersion, kind: options.kind };
  if (options.namespace !== undefined) q.namespace = options.namespace;
  if (options.labelSelector !== undefined) q.labelSelector = options.labelSelector;
  if (options.fieldSelector !== undefined) q.fieldSelector = options.fieldSelector;
  return q;
}

/**
 * Lists every page, each transformed as it arrives; a 410 on a continue token restarts the list
 * unpaginated, as client-go does.
 */
async function listAll<T, R extends ObjectHeader>(
  state: InformerState<T, R>,
  signal: AbortSignal,
): Promise<ApiResult<{ items: T[]; resourceVersion: string }>> {
  const items: T[] = [];
  let token: string | undefined;
  let limit: number | undefined = state.pageSize;
  for (;;) {
    const page = await state.client.list<R>({
      ...query(state.options, { signal }),
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
    for (const item of page.value.items) items.push(state.transform(item));
    token = page.value.metadata.continue;
    if (token === undefined || token === "")
      return {
        ok: true,
        status: 200,
        value: { items, resourceVersion: page.value.metadata.resourceVersion },
      };
  }
}

/** Replaces the cache with a list and reports the difference. */
function applyList<T, R>(state: InformerState<T, R>, items: T[]): void {
  const diff = state.store.replace(items);
  for (const object of diff.added) emit(state, "add", object);
  for (const { object, old } of diff.updated) emit(state, "update", object, old);
  for (const object of diff.deleted) emit(state, "delete", object);
}

/** One watch event into the cache and the handlers; an ERROR ends the watch. */
function onEvent<T, R extends ObjectHeader>(
  state: InformerState<T, R>,
  event: WatchEvent<R>,
  watch: { gone: boolean; failure?: ApiFailure; events: number },
): void {
  if (event.type === "ERROR") {
    if (event.failure.status === 410) watch.gone = true;
    else watch.failure = event.failure;
    state.stopWatch?.();
    return;
  }
  watch.events++;
  const rv = event.object.metadata?.resourceVersion;
  if (event.type === "BOOKMARK") {
    if (rv !== undefined && rv !== "") state.resourceVersion = rv;
    return;
  }
  const object = state.transform(event.object);
  if (event.type === "ADDED" || event.type === "MODIFIED") {
    const old = state.store.put(object);
    if (old === undefined) emit(state, "add", object);
    else emit(state, "update", object, old);
  } else if (event.type === "DELETED") {
    state.store.remove(object);
    emit(state, "delete", object);
  }
  if (rv !== undefined && rv !== "") state.resourceVersion = rv;
}

/** Watches from `from` until the watch ends; what to do next. */
async function watchOnce<T, R extends ObjectHeader>(
  state: InformerState<T, R>,
  from: string,
  signal: AbortSignal,
): Promise<WatchOutcome> {
  const { options, clock } = state;
  const watch: { gone: boolean; failure?: ApiFailure; events: number } = { gone: false, events: 0 };
  const timeoutSeconds = options.watchTimeoutSeconds ?? Math.floor(300 * (1 + Math.random()));
  const opened = await state.client.watch<R>(
    query(options, { signal, resourceVersion: from, timeoutSeconds }),
    (event) => onEvent(state, event, watch),
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
  state.stopWatch = opened.value.stop;
  const end = await opened.value.done;
  state.stopWatch = undefined;
  if (signal.aborted) return { next: "stopped" };
  if (watch.gone) return { next: "relist" };
  const progressed = watch.events > 0 || clock.now() - openedAt >= QUICK_CLOSE_MS;
  if (watch.failure !== undefined) return { next: "watch", progressed, failure: watch.failure };
  if (end.reason === "failed") return { next: "watch", progressed, failure: end.failure };
  return { next: "watch", progressed };
}

/**
 * Waits `retryInMs` before retry `attempt` (reported to the error handlers with its failure); when the
 * server could not be reached, until its backoff ends or as soon as it answers again.
 */
async function waitToRetry<T, R>(
  state: InformerState<T, R>,
  source: "list" | "watch",
  failure: ApiFailure | undefined,
  attempt: number,
  signal: AbortSignal,
): Promise<void> {
  const { clock } = state;
  const retryInMs = Math.max(0, state.delay(attempt));
  if (failure !== undefined) emit(state, "error", { source, failure, attempt, retryInMs });
  if (!unreachable(failure)) {
    await sleep(clock, retryInMs, signal);
    return;
  }
  const wake = new AbortController();
  const stop = (): void => wake.abort();
  signal.addEventListener("abort", stop, { once: true });
  await Promise.race([sleep(clock, retryInMs, wake.signal), state.client.recovered(wake.signal)]);
  signal.removeEventListener("abort", stop);
  wake.abort();
}

/**
 * Lists into the cache (the list itself is not kept: while the loop watches, only the cache holds its
 * objects); the failure, or undefined once cached.
 */
async function relist<T, R extends ObjectHeader>(
  state: InformerState<T, R>,
  signal: AbortSignal,
): Promise<ApiFailure | undefined> {
  const listed = await listAll(state, signal);
  if (signal.aborted || !listed.ok) return listed.ok ? undefined : listed;
  applyList(state, listed.value.items);
  state.resourceVersion = listed.value.resourceVersion;
  return undefined;
}

/** Lists and watches until `signal` aborts; `onSynced` once the first list is cached. */
export async function runInformer<T, R extends ObjectHeader>(
  state: InformerState<T, R>,
  signal: AbortSignal,
  onSynced: () => void,
): Promise<void> {
  let attempt = 0;
  const retry = (source: "list" | "watch", failure: ApiFailure | undefined): Promise<void> =>
    waitToRetry(state, source, failure, ++attempt, signal);
  while (!signal.aborted) {
    if (state.resourceVersion === undefined) {
      const failure = await relist(state, signal);
      if (signal.aborted) break;
      if (failure !== undefined) {
        await retry("list", failure);
        continue;
      }
      attempt = 0;
      if (!state.synced) {
        state.synced = true;
        onSynced();
        emit(state, "synced");
      }
    }
    const outcome = await watchOnce(state, state.resourceVersion ?? "", signal);
    if (outcome.next === "stopped") break;
    if (outcome.next === "relist") {
      state.resourceVersion = undefined;
      continue;
    }
    if (outcome.progressed) attempt = 0;
    if (outcome.failure !== undefined || !outcome.progressed) await retry("watch", outcome.failure);
  }
}
