/**
 * `createReportStream`: list + watch of one report kind that hands every object straight to ingest
 * and keeps nothing of it but its resourceVersion. The kube informer caches every object it lists
 * (at 100,000 reports, most of the reporter's memory), and ingest already keeps each report's events
 * in order and stores them; the reporter needs no second copy.
 *
 * - The list is paginated and read page by page: the next page is fetched only once the reports
 *   handed over are below `maxInFlight` (not yet stored), so an initial sync holds about one page.
 * - A relist (start, 410 Gone, `resync()`) hands over the reports whose resourceVersion changed and
 *   deletes the ones no longer listed.
 * - Watch events are handed over as they arrive; when `maxInFlight` reports are waiting for the
 *   store, the watch is closed and opened again from its last resourceVersion once they are written
 *   (the API server replays the events in between; after a compaction, 410 relists).
 * - Failures are retried after `delay(attempt)`.
 */
import type { ApiFailure, KubeClient } from "@kyverno-ts/kube";
import type { Ingest } from "../ingest/ingest.js";
import type { ReportKind } from "../model/types.js";

/** A report object as listed or watched: only its metadata is read here. */
export type RawReport = { metadata?: { name?: string; namespace?: string; resourceVersion?: string } };

/** What a stream reports to its owner (logs, metrics). */
export type StreamFailure = {
  source: "list" | "watch";
  failure: ApiFailure;
  attempt: number;
  retryInMs: number;
};

/** Options of {@link createReportStream}. */
export interface ReportStreamOptions {
  client: KubeClient;
  apiVersion: string;
  kind: ReportKind;
  ingest: Pick<Ingest, "upsert" | "delete">;
  /** Milliseconds before retry `attempt` (1, 2, …). */
  delay: (attempt: number) => number;
  onFailure: (failure: StreamFailure) => void;
  /** Reports handed to ingest and not yet stored before the list or watch waits (default 1000). */
  maxInFlight?: number;
  /** Items per list page (default 500). */
  pageSize?: number;
  /** Server-side watch timeout; default a random 300–600 s per watch, as client-go. */
  watchTimeoutSeconds?: number;
}

/** One kind's list + watch; create with {@link createReportStream}. */
export interface ReportStream {
  /** Starts; resolves once the first list was handed to ingest (or when stopped first). */
  start(): Promise<void>;
  /** Lists again and hands over every report (a store rebuild); resolves when handed over. */
  resync(): Promise<void>;
  /** Reports known (listed or watched and not deleted). */
  size(): number;
  /** Resolves when every report handed over so far is stored (or failed). */
  drained(): Promise<void>;
  /** Stops the list / watch; resolves when the loop ended. */
  stop(): Promise<void>;
}

/** Resolves after `ms` or when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

const QUICK_CLOSE_MS = 1000;

/** Creates the stream of one report kind; nothing happens before `start()`. */
export function createReportStream(options: ReportStreamOptions): ReportStream {
  const { client, ingest, kind, apiVersion } = options;
  const maxInFlight = options.maxInFlight ?? 1000;
  const pageSize = options.pageSize ?? 500;
  /** `namespace/name` → resourceVersion of every report handed over and not deleted. */
  const versions = new Map<string, string>();
  let inFlight = 0;
  const belowLimit: (() => void)[] = [];
  const idle: (() => void)[] = [];
  let resourceVersion: string | undefined;
  let running: { abort: AbortController; loop: Promise<void>; synced: Promise<void> } | undefined;
  let stopWatch: (() => void) | undefined;
  const resyncs: (() => void)[] = [];
  let forceRelist = false;

  const settled = () => {
    if (inFlight < maxInFlight) for (const w of belowLimit.splice(0)) w();
    if (inFlight === 0) for (const w of idle.splice(0)) w();
  };
  const track = (handed: Promise<unknown>) => {
    inFlight++;
    void handed.then(
      () => {
        inFlight--;
        settled();
      },
      () => {
        inFlight--;
        settled();
      },
    );
  };
  const roomToHand = (): Promise<void> =>
    inFlight < maxInFlight ? Promise.resolve() : new Promise((resolve) => belowLimit.push(resolve));

  const keyOf = (object: RawReport): string | undefined => {
    const name = object.metadata?.name;
    return name ? `${object.metadata?.namespace ?? ""}/${name}` : undefined;
  };
  const handUpsert = (object: RawReport) => track(ingest.upsert(object, { kind }));
  const handDelete = (key: string) => {
    const at = key.indexOf("/");
    const namespace = key.slice(0, at);
    const name = key.slice(at + 1);
    track(ingest.delete({ kind, metadata: { name, ...(namespace ? { namespace } : {}) } }, { kind }));
  };

  /** Lists page by page; the list's resourceVersion, or the failure. */
  const relist = async (signal: AbortSignal): Promise<{ ok: true; version: string } | ApiFailure> => {
    const listed = new Set<string>();
    let token: string | undefined;
    for (;;) {
      await roomToHand();
      if (signal.aborted) return { ok: true, version: "" };
      const page = await client.list<RawReport>({
        apiVersion,
        kind,
        signal,
        limit: pageSize,
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
        handUpsert(object);
      }
      token = page.value.metadata.continue || undefined;
      if (token === undefined) {
        for (const key of versions.keys()) {
          if (listed.has(key)) continue;
          versions.delete(key);
          handDelete(key);
        }
        return { ok: true, version: page.value.metadata.resourceVersion };
      }
    }
  };

  type WatchOutcome = "relist" | "stopped" | "paused" | { progressed: boolean; failure?: ApiFailure };

  const watchOnce = async (from: string, signal: AbortSignal): Promise<WatchOutcome> => {
    const state: { gone: boolean; paused: boolean; failure?: ApiFailure; events: number } = {
      gone: false,
      paused: false,
      events: 0,
    };
    const timeoutSeconds = options.watchTimeoutSeconds ?? Math.floor(300 * (1 + Math.random()));
    const opened = await client.watch<RawReport>(
      { apiVersion, kind, signal, resourceVersion: from, timeoutSeconds },
      (event) => {
        if (state.gone || state.paused || forceRelist) return;
        if (event.type === "ERROR") {
          if (event.failure.status === 410) state.gone = true;
          else state.failure = event.failure;
          stopWatch?.();
          return;
        }
        state.events++;
        const key = keyOf(event.object);
        if (key !== undefined && event.type === "DELETED") {
          if (versions.delete(key)) handDelete(key);
        } else if (key !== undefined && event.type !== "BOOKMARK") {
          versions.set(key, event.object.metadata?.resourceVersion ?? "");
          handUpsert(event.object);
        }
        const rv = event.object.metadata?.resourceVersion;
        if (rv) resourceVersion = rv;
        if (inFlight >= maxInFlight) {
          state.paused = true;
          stopWatch?.();
        }
      },
    );
    if (signal.aborted) {
      if (opened.ok) opened.value.stop();
      return "stopped";
    }
    if (!opened.ok) return opened.status === 410 ? "relist" : { progressed: false, failure: opened };
    const openedAt = Date.now();
    stopWatch = opened.value.stop;
    if (state.paused || state.gone || state.failure) opened.value.stop();
    const end = await opened.value.done;
    stopWatch = undefined;
    if (signal.aborted) return "stopped";
    if (state.gone) return "relist";
    if (state.paused) return "paused";
    const progressed = state.events > 0 || Date.now() - openedAt >= QUICK_CLOSE_MS;
    if (state.failure !== undefined) return { progressed, failure: state.failure };
    if (end.reason === "failed") return { progressed, failure: end.failure };
    return { progressed };
  };

  const run = async (signal: AbortSignal, onSynced: () => void): Promise<void> => {
    let attempt = 0;
    const retry = async (source: "list" | "watch", failure: ApiFailure | undefined) => {
      attempt++;
      const retryInMs = Math.max(0, options.delay(attempt));
      if (failure !== undefined) options.onFailure({ source, failure, attempt, retryInMs });
      await pause(retryInMs, signal);
    };
    while (!signal.aborted) {
      if (forceRelist) {
        forceRelist = false;
        versions.clear();
        resourceVersion = undefined;
      }
      if (resourceVersion === undefined) {
        const waiting = resyncs.splice(0);
        const listed = await relist(signal);
        if (signal.aborted) break;
        if (!("version" in listed)) {
          resyncs.push(...waiting);
          await retry("list", listed);
          continue;
        }
        attempt = 0;
        resourceVersion = listed.version;
        onSynced();
        for (const w of waiting) w();
        if (forceRelist) continue;
      }
      const outcome = await watchOnce(resourceVersion, signal);
      if (outcome === "stopped") break;
      if (forceRelist) continue;
      if (outcome === "relist") {
        resourceVersion = undefined;
        continue;
      }
      if (outcome === "paused") {
        await roomToHand();
        continue;
      }
      if (outcome.progressed) attempt = 0;
      if (outcome.failure !== undefined || !outcome.progressed) await retry("watch", outcome.failure);
    }
    for (const w of resyncs.splice(0)) w();
  };

  return {
    start() {
      if (running !== undefined) return running.synced;
      const abort = new AbortController();
      let markSynced: () => void = () => undefined;
      const synced = new Promise<void>((resolve) => {
        markSynced = resolve;
      });
      abort.signal.addEventListener("abort", () => markSynced(), { once: true });
      running = { abort, loop: run(abort.signal, markSynced), synced };
      return synced;
    },
    resync() {
      if (running === undefined) return Promise.resolve();
      forceRelist = true;
      const done = new Promise<void>((resolve) => resyncs.push(resolve));
      stopWatch?.();
      return done;
    },
    size: () => versions.size,
    drained: () => (inFlight === 0 ? Promise.resolve() : new Promise((resolve) => idle.push(resolve))),
    async stop() {
      const current = running;
      if (current === undefined) return;
      current.abort.abort();
      stopWatch?.();
      for (const w of belowLimit.splice(0)) w();
      await current.loop;
      running = undefined;
    },
  };
}
