/**
 * A report stream's list + watch loop as module functions over one per-stream `StreamState`: handing
 * reports to ingest while counting those not yet stored (the back-pressure), listing page by page,
 * watching from the last resourceVersion, and retrying after failures.
 */
import { sleep, systemClock } from "@kyverno-ts/api";
import type { ApiFailure } from "@kyverno-ts/kube";
import type { RawReport, ReportStreamOptions } from "./report-stream-types.js";

/** What one stream holds while it runs. */
export interface StreamState {
  readonly options: ReportStreamOptions;
  readonly maxInFlight: number;
  readonly pageSize: number;
  /** `namespace/name` → resourceVersion of every report handed over and not deleted. */
  readonly versions: Map<string, string>;
  /** Reports handed to ingest and not yet stored (or failed). */
  inFlight: number;
  /** Waiting for `inFlight` to drop below `maxInFlight`. */
  readonly belowLimit: (() => void)[];
  /** Waiting for `inFlight` to reach 0. */
  readonly idle: (() => void)[];
  /** Where the next watch starts; undefined: list (again). */
  resourceVersion: string | undefined;
  /** Ends the open watch. */
  stopWatch: (() => void) | undefined;
  /** `resync()` callers waiting for the next list to be handed over. */
  readonly resyncs: (() => void)[];
  /** Set by `resync()`: forget the versions and list again. */
  forceRelist: boolean;
}

type WatchOutcome = "relist" | "stopped" | "paused" | { progressed: boolean; failure?: ApiFailure };

const QUICK_CLOSE_MS = 1000;

/** Wakes who waits for room below the limit, or for nothing in flight. */
function settled(state: StreamState): void {
  if (state.inFlight < state.maxInFlight) for (const w of state.belowLimit.splice(0)) w();
  if (state.inFlight === 0) for (const w of state.idle.splice(0)) w();
}

/** Counts `handed` in flight until it settles. */
function track(state: StreamState, handed: Promise<unknown>): void {
  state.inFlight++;
  const done = () => {
    state.inFlight--;
    settled(state);
  };
  void handed.then(done, done);
}

/** Resolves once fewer than `maxInFlight` reports are in flight. */
export function roomToHand(state: StreamState): Promise<void> {
  return state.inFlight < state.maxInFlight
    ? Promise.resolve()
    : new Promise((resolve) => state.belowLimit.push(resolve));
}

const keyOf = (object: RawReport): string | undefined => {
  const name = object.metadata?.name;
  return name ? `${object.metadata?.namespace ?? ""}/${name}` : undefined;
};

const handUpsert = (state: StreamState, object: RawReport) =>
  track(state, state.options.ingest.upsert(object, { kind: state.options.kind }));

const handDelete = (state: StreamState, key: string) => {
  const { kind } = state.options;
  const at = key.indexOf("/");
  const namespace = key.slice(0, at);
  const name = key.slice(at + 1);
  track(
    state,
    state.options.ingest.delete({ kind, metadata: { name, ...(namespace ? { namespace } : {}) } }, { kind }),
  );
};

/** Lists page by page; the list's resourceVersion, or the failure. */
async function relist(
  state: StreamState,
  signal: AbortSignal,
): Promise<{ ok: true; version: string } | ApiFailure> {
  const { client, apiVersion, kind } = state.options;
  const { versions } = state;
  const listed = new Set<string>();
  let token: string | undefined;
  for (;;) {
    await roomToHand(state);
    if (signal.aborted) return { ok: true, version: "" };
    const page = await client.list<RawReport>({
      apiVersion,
      kind,
      signal,
      limit: state.pageSize,
      ...(token === undefined ? {} : { continue: token }),
    });
    if (!page.ok) {
      // An expired continue token: list again from the start (what was handed over stays).
      if (page.status === 410 && token !== undefined) {
        token = undefined;
        listed.clear();
        continue;
      }
      return page;
    }
    for (const object of page.value.items) {
      const key = keyOf(object);
      if (key === undefined) continue;
      listed.add(key);
      const version = object.metadata?.resourceVersion ?? "";
      if (versions.get(key) === version && version !== "") continue;
      versions.set(key, version);
      handUpsert(state, object);
    }
    token = page.value.metadata.continue || undefined;
    if (token === undefined) {
      for (const key of versions.keys()) {
        if (listed.has(key)) continue;
        versions.delete(key);
        handDelete(state, key);
      }
      return { ok: true, version: page.value.metadata.resourceVersion };
    }
  }
}

/** Watches from `from` until the watch ends, is paused by back-pressure or must relist. */
async function watchOnce(state: StreamState, from: string, signal: AbortSignal): Promise<WatchOutcome> {
  const { client, apiVersion, kind } = state.options;
  const watch: { gone: boolean; paused: boolean; failure?: ApiFailure; events: number } = {
    gone: false,
    paused: false,
    events: 0,
  };
  const timeoutSeconds = state.options.watchTimeoutSeconds ?? Math.floor(300 * (1 + Math.random()));
  const opened = await client.watch<RawReport>(
    { apiVersion, kind, signal, resourceVersion: from, timeoutSeconds },
    (event) => {
      if (watch.gone || watch.paused || state.forceRelist) return;
      if (event.type === "ERROR") {
        if (event.failure.status === 410) watch.gone = true;
        else watch.failure = event.failure;
        state.stopWatch?.();
        return;
      }
      watch.events++;
      const key = keyOf(event.object);
      if (key !== undefined && event.type === "DELETED") {
        if (state.versions.delete(key)) handDelete(state, key);
      } else if (key !== undefined && event.type !== "BOOKMARK") {
        state.versions.set(key, event.object.metadata?.resourceVersion ?? "");
        handUpsert(state, event.object);
      }
      const rv = event.object.metadata?.resourceVersion;
      if (rv) state.resourceVersion = rv;
      if (state.inFlight >= state.maxInFlight) {
        watch.paused = true;
        state.stopWatch?.();
      }
    },
  );
  if (signal.aborted) {
    if (opened.ok) opened.value.stop();
    return "stopped";
  }
  if (!opened.ok) return opened.status === 410 ? "relist" : { progressed: false, failure: opened };
  const clock = state.options.clock ?? systemClock;
  const openedAt = clock.now();
  state.stopWatch = opened.value.stop;
  if (watch.paused || watch.gone || watch.failure) opened.value.stop();
  const end = await opened.value.done;
  state.stopWatch = undefined;
  if (signal.aborted) return "stopped";
  if (watch.gone) return "relist";
  if (watch.paused) return "paused";
  const progressed = watch.events > 0 || clock.now() - openedAt >= QUICK_CLOSE_MS;
  if (watch.failure !== undefined) return { progressed, failure: watch.failure };
  if (end.reason === "failed") return { progressed, failure: end.failure };
  return { progressed };
}

/** Lists and watches until `signal` aborts; `onSynced` after each list handed over. */
export async function runStream(
  state: StreamState,
  signal: AbortSignal,
  onSynced: () => void,
): Promise<void> {
  const { options } = state;
  let attempt = 0;
  const retry = async (source: "list" | "watch", failure: ApiFailure | undefined) => {
    attempt++;
    const retryInMs = Math.max(0, options.delay(attempt));
    if (failure !== undefined) options.onFailure({ source, failure, attempt, retryInMs });
    await sleep(state.options.clock ?? systemClock, retryInMs, signal);
  };
  while (!signal.aborted) {
    if (state.forceRelist) {
      state.forceRelist = false;
      state.versions.clear();
      state.resourceVersion = undefined;
    }
    if (state.resourceVersion === undefined) {
      const waiting = state.resyncs.splice(0);
      const listed = await relist(state, signal);
      if (signal.aborted) break;
      if (!("version" in listed)) {
        state.resyncs.push(...waiting);
        await retry("list", listed);
        continue;
      }
      attempt = 0;
      state.resourceVersion = listed.version;
      onSynced();
      for (const w of waiting) w();
      if (state.forceRelist) continue;
    }
    const outcome = await watchOnce(state, state.resourceVersion, signal);
    if (outcome === "stopped") break;
    if (state.forceRelist) continue;
    if (outcome === "relist") {
      state.resourceVersion = undefined;
      continue;
    }
    if (outcome === "paused") {
      await roomToHand(state);
      continue;
    }
    if (outcome.progressed) attempt = 0;
    if (outcome.failure !== undefined || !outcome.progressed) await retry("watch", outcome.failure);
  }
  for (const w of state.resyncs.splice(0)) w();
}
