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
import { runStream, type StreamState } from "./report-stream-loop.js";
import type { ReportStream, ReportStreamOptions } from "./report-stream-types.js";

export type { RawReport, ReportStream, ReportStreamOptions, StreamFailure } from "./report-stream-types.js";

/** Creates the stream of one report kind; nothing happens before `start()`. */
export function createReportStream(options: ReportStreamOptions): ReportStream {
  const state: StreamState = {
    options,
    maxInFlight: options.maxInFlight ?? 1000,
    pageSize: options.pageSize ?? 500,
    versions: new Map(),
    inFlight: 0,
    belowLimit: [],
    idle: [],
    resourceVersion: undefined,
    stopWatch: undefined,
    resyncs: [],
    forceRelist: false,
  };
  let running: { abort: AbortController; loop: Promise<void>; synced: Promise<void> } | undefined;

  return {
    start() {
      if (running !== undefined) return running.synced;
      const abort = new AbortController();
      let markSynced: () => void = () => undefined;
      const synced = new Promise<void>((resolve) => {
        markSynced = resolve;
      });
      abort.signal.addEventListener("abort", () => markSynced(), { once: true });
      running = { abort, loop: runStream(state, abort.signal, markSynced), synced };
      return synced;
    },
    resync() {
      if (running === undefined) return Promise.resolve();
      state.forceRelist = true;
      const done = new Promise<void>((resolve) => state.resyncs.push(resolve));
      state.stopWatch?.();
      return done;
    },
    size: () => state.versions.size,
    drained: () =>
      state.inFlight === 0 ? Promise.resolve() : new Promise((resolve) => state.idle.push(resolve)),
    async stop() {
      const current = running;
      if (current === undefined) return;
      current.abort.abort();
      state.stopWatch?.();
      for (const w of state.belowLimit.splice(0)) w();
      await current.loop;
      running = undefined;
    },
  };
}
