/**
 * Leadership terms of the reports controller: a term starts the work queue (its workers reconcile
 * one resource each), queues a full scan and repeats it every `scanIntervalMs`; it ends when the
 * Lease is lost or the controller stops. A full scan queues every watched resource and every known
 * report (reports of deleted resources go too), in slices, and is logged once nothing is queued, in
 * flight or waiting for a retry.
 */
import { createWorkQueue, type ReconcileContext, type ReconcileResult } from "@kyverno-ts/kube";
import { type ControllerState, canWrite, REPORTS_CONTROLLER_NAME, type Term } from "./controller-state.js";
import { enqueue, enqueueObject, syncKinds } from "./requeue.js";
import { parseResourceKey, refOfScope, resourceKey } from "./resource-key.js";
import { forEachSliced } from "./scan-slicer.js";

/** Reconciles one key for the work queue: counts it, remembers failures, settles ephemeral reports. */
async function handle(
  s: ControllerState,
  key: string,
  context: ReconcileContext,
): Promise<ReconcileResult | undefined> {
  s.retrying.delete(key);
  s.inFlight++;
  try {
    const uid = parseResourceKey(key)?.uid;
    const owed = uid === undefined ? undefined : s.ephemeral?.owed(uid);
    const result = await s.reconcile(key, context);
    if (result !== undefined) s.retrying.add(key);
    // The report now holds what that ephemeral report said: it can go (a newer one stays).
    else if (owed !== undefined && canWrite(s)) await s.ephemeral?.settled(owed, context.signal);
    return result;
  } catch (error) {
    s.retrying.add(key);
    s.logger.error({ key, error: String(error) }, "reconcile failed");
    return { error };
  } finally {
    s.inFlight--;
    s.counters.reconciled++;
    scanProgress(s);
  }
}

/** Logs the end of a full scan once nothing is queued, in flight or waiting for a retry. */
function scanProgress(s: ControllerState): void {
  const t = s.term;
  if (t?.scan === undefined || t.queue.len() > 0 || s.inFlight > 0 || s.retrying.size > 0) return;
  const { startedAt, before } = t.scan;
  t.scan = undefined;
  const now = s.clock.monotonic();
  s.metrics?.scanCompleted((now - startedAt) / 1000, new Date(s.clock.now()));
  const { counters } = s;
  s.logger.info(
    {
      durationMs: Math.round(now - startedAt),
      reconciled: counters.reconciled - before.reconciled,
      created: counters.created - before.created,
      updated: counters.updated - before.updated,
      deleted: counters.deleted - before.deleted,
      unchanged: counters.unchanged - before.unchanged,
      reports: s.index.size,
    },
    "full scan done",
  );
}

/**
 * Queues every watched resource and every known report (reports of deleted resources go too). The
 * first scan of a term (after a start or a restart) evaluates only resources whose scan inputs changed
 * since their report was written, as upstream's background controller does; `force` (the periodic
 * rescans, as upstream's forced rescan after `backgroundScanInterval`) evaluates every resource again,
 * so results that depend on what no input covers are refreshed and their Events emitted again.
 */
export async function fullScan(s: ControllerState, t: Term, force: boolean): Promise<void> {
  const startedAt = s.clock.monotonic();
  await syncKinds(s, true);
  s.context.clear();
  const loaded = await s.index.load();
  if (s.term !== t) return;
  if (!loaded.ok) s.logger.warn({ reason: loaded.reason, message: loaded.message }, "cannot list reports");
  if (force) s.index.forgetInputs();
  let resources = 0;
  const before = { ...s.counters, scans: s.counters.scans + 1 };
  // Tens of thousands of keys: queued in slices, so probes and watch events are answered meanwhile.
  for (const w of s.informers.all()) {
    await forEachSliced(w.informer.list(), s.slicer, (o) => {
      enqueueObject(s, o, w);
      resources++;
    });
  }
  await forEachSliced([...s.index.entries()], s.slicer, (entry) => {
    const ref = refOfScope(entry.scope);
    if (ref !== undefined) enqueue(s, resourceKey(ref));
  });
  if (s.term !== t) return;
  s.counters.scans++;
  t.scan = { startedAt, before };
  scanProgress(s);
  s.logger.info({ resources, reports: s.index.size, kinds: s.informers.all().length }, "full scan queued");
}

/** Runs a full scan every `scanIntervalMs` while the term lasts. */
function scheduleRescan(s: ControllerState, t: Term): void {
  t.cancelRescan = s.clock.after(s.scanIntervalMs, () => {
    if (s.term !== t) return;
    void fullScan(s, t, true);
    scheduleRescan(s, t);
  });
}

/** Starts a term (on leadership, or at once without leader election): queue, workers, full scan. */
export function startTerm(s: ControllerState): void {
  if (s.stopped || s.term !== undefined) return;
  const { metrics, logger } = s;
  const queue = createWorkQueue<string>({
    name: REPORTS_CONTROLLER_NAME,
    clock: s.clock,
    onReconcile: (e) => metrics?.reconcile(e.controller),
    onRequeue: (e) => metrics?.requeue(e.controller, e.retries),
    onDrop: (e) => {
      s.retrying.delete(e.key);
      metrics?.drop(e.controller);
      logger.error({ key: e.key, retries: e.retries, error: String(e.error) }, "giving up on a resource");
    },
  });
  const t: Term = { queue, cancelRescan: () => {} };
  s.term = t;
  logger.info({ workers: s.workers }, "leading: reconciling reports");
  for (const key of s.pendingKeys) queue.add(key);
  s.pendingKeys.clear();
  void queue.process(s.workers, (key, context) => handle(s, key, context));
  void fullScan(s, t, false);
  scheduleRescan(s, t);
}

/** Ends the running term; `drain`: its workers finish what is queued first. */
export async function endTerm(s: ControllerState, drain: boolean): Promise<void> {
  const t = s.term;
  if (t === undefined) return;
  t.cancelRescan();
  await t.queue.shutdown({ drain });
  if (s.term === t) s.term = undefined;
  s.retrying.clear();
}
