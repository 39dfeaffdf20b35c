/**
 * The reports controller (`kyverno-ts reports`): background scans of every resource that background
 * policies match, merged with admission results into one PolicyReport / ClusterPolicyReport per
 * resource. Every replica keeps its caches warm (policies, exceptions, namespaces, the matched kinds);
 * only the leader of the `kyverno-reports-controller` Lease runs the work queue and writes. Each
 * leadership term starts with a full scan, repeated every `scanIntervalMs`; in between, changes of a
 * resource, a policy, an exception or a namespace's labels requeue what they affect. Policies matching
 * any kind (`*`, `apps/v1/*`) are not scanned: upstream does not allow them in background mode (the
 * policy loader rejects `*` with background on; the rest are skipped with a warning).
 *
 * The parts: `controller-parts.ts` builds the components, `requeue.ts` decides what a change queues
 * and which kinds are watched, `scan-term.ts` runs leadership terms and full scans, `reconciler.ts`
 * reconciles one resource, `admission-drain.ts` takes the results admission hands over.
 */
import { scheduleDrain } from "./admission-drain.js";
import { createControllerParts } from "./controller-parts.js";
import {
  type ControllerState,
  canWrite,
  initialRun,
  REPORTS_CONTROLLER_NAME,
  REPORTS_LEASE_NAME,
} from "./controller-state.js";
import { syncKinds } from "./requeue.js";
import { endTerm, fullScan, startTerm } from "./scan-term.js";
import type { ReportsController, ReportsControllerOptions, ReportsControllerStats } from "./types.js";

export { REPORTS_CONTROLLER_NAME, REPORTS_LEASE_NAME };

/** How long `start()` waits for the resource informers before campaigning anyway. */
const SYNC_TIMEOUT_MS = 30_000;

/** Waits for the informers' first lists, at most `SYNC_TIMEOUT_MS`; logs the kinds still listing. */
async function awaitInformers(s: ControllerState): Promise<void> {
  let cancel = (): void => {};
  const timedOut = new Promise<boolean>((resolve) => {
    cancel = s.clock.after(SYNC_TIMEOUT_MS, () => resolve(true));
  });
  if (await Promise.race([s.informers.synced().then(() => false), timedOut]))
    s.logger.warn(
      {
        kinds: s.informers
          .all()
          .filter((w) => !w.informer.hasSynced())
          .map((w) => w.kind),
      },
      "informers not synced yet",
    );
  cancel();
}

/** Starts the caches, takes admission results, watches the kinds, then campaigns (or leads at once). */
async function start(s: ControllerState): Promise<void> {
  s.metrics?.setGauges({
    queueDepth: () => new Map([[REPORTS_CONTROLLER_NAME, s.term?.queue.len() ?? 0]]),
    reports: () => s.index.size,
  });
  await s.cluster.start();
  // Results are taken once the policies are loaded: a result whose policy the cache does not hold
  // yet would be dropped (the background controller's generateExisting results can come first).
  s.unsubscribe = s.options.admissionResults?.onAvailable(() => scheduleDrain(s));
  scheduleDrain(s);
  s.ephemeral?.start();
  await syncKinds(s);
  // Kinds that cannot be listed (RBAC, a failing aggregated API) must not keep this replica from
  // campaigning: their keys wait for the sync in the queue.
  await awaitInformers(s);
  scheduleDrain(s);
  if (s.elector !== undefined) s.elector.start();
  else startTerm(s);
}

/** Stops like a crash: the client is cut off, nothing is drained, the Lease is not handed back. */
async function abort(s: ControllerState): Promise<void> {
  s.sever();
  const t = s.term;
  s.term = undefined;
  t?.cancelRescan();
  await Promise.all([
    t?.queue.shutdown({ drain: false }),
    s.elector?.release(),
    s.informers.stop(),
    s.cluster.stop(),
    s.ephemeral?.stop(),
  ]);
}

/** The controller's counters now. */
function stats(s: ControllerState): ReportsControllerStats {
  return {
    leading: canWrite(s),
    queued: s.term?.queue.len() ?? 0,
    inFlight: s.inFlight,
    retrying: s.retrying.size,
    ...s.counters,
    reports: s.index.size,
    watchedKinds: s.informers.all().map((w) => `${w.apiVersion}/${w.kind}`),
    unresolvedKinds: s.informers.unresolved(),
  };
}

/** Creates the controller; nothing happens until `start()`. */
export function createReportsController(options: ReportsControllerOptions): ReportsController {
  const s: ControllerState = { ...createControllerParts(options, () => s), ...initialRun(options) };
  /** Marks the controller stopped; false when it already was. */
  const stopping = (): boolean => {
    if (s.stopped) return false;
    s.stopped = true;
    s.unsubscribe?.();
    return true;
  };
  return {
    start: () => start(s),
    async stop(stopOptions) {
      if (!stopping()) return;
      await endTerm(s, stopOptions?.drain !== false);
      await s.elector?.release();
      await Promise.all([s.informers.stop(), s.cluster.stop(), s.ephemeral?.stop()]);
    },
    async abort() {
      if (stopping()) await abort(s);
    },
    rescan() {
      if (s.term !== undefined) void fullScan(s, s.term, true);
    },
    isLeader: () => canWrite(s),
    stats: () => stats(s),
  };
}
