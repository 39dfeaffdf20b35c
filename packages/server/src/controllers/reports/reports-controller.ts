/**
 * The reports controller (`kyverno-ts reports`): background scans of every resource that background
 * policies match, merged with admission results into one PolicyReport / ClusterPolicyReport per
 * resource. Every replica keeps its caches warm (policies, exceptions, namespaces, the matched kinds);
 * only the leader of the `kyverno-reports-controller` Lease runs the work queue and writes. Each
 * leadership term starts with a full scan, repeated every `scanIntervalMs`; in between, changes of a
 * resource, a policy, an exception or a namespace's labels requeue what they affect. Policies matching
 * any kind (`*`, `apps/v1/*`) are not scanned: upstream does not allow them in background mode (the
 * policy loader rejects `*` with background on; the rest are skipped with a warning).
 */
import type { KubeObject } from "@kyverno-ts/api";
import { createCelEngine, matchWildcard } from "@kyverno-ts/engine";
import {
  createLeaderElector,
  createWorkQueue,
  type ReconcileContext,
  type WorkQueue,
} from "@kyverno-ts/kube";
import { isFilteredResource } from "../../admission/filters.js";
import { systemClock } from "../../clock.js";
import { createClusterState } from "../../cluster-state/cluster-state.js";
import { createScanContext } from "../../external-data/scan-context.js";
import { silentLogger } from "../../logger.js";
import { celPolicyKey, createCelPolicyStore } from "../../policycache/cel-policy-store.js";
import { type CachedPolicy, createPolicyCache, policyRefKey } from "../../policycache/policy-cache.js";
import { awaitsUid, resolveCreatedUid } from "../../reports/created-uid.js";
import { DEFAULT_REPORT_LIMITS } from "../../reports/report-builder.js";
import { createReportIndex } from "../../reports/report-index.js";
import { createReportWriter, type WriteOutcome } from "../../reports/report-writer.js";
import { ingestAdmissionResult, ingestEphemeralReport } from "./admission-intake.js";
import { createAdmissionResultStore } from "./admission-results.js";
import { createCelReports } from "./cel-reports.js";
import { createEphemeralIntake } from "./ephemeral-intake.js";
import { kindFilteredEverywhere } from "./filtered-kinds.js";
import { createReconciler } from "./reconciler.js";
import { createResourceInformers } from "./resource-informers.js";
import { parseResourceKey, refOfObject, refOfScope, resourceKey } from "./resource-key.js";
import { createScanSlicer, forEachSliced } from "./scan-slicer.js";
import { severableClient } from "./severable-client.js";
import type { ReportsController, ReportsControllerOptions, ReportsControllerStats } from "./types.js";

/** The Lease replicas elect the writer on, as upstream. */
export const REPORTS_LEASE_NAME = "kyverno-reports-controller";
/** The `controller_name` label of the queue metrics. */
export const REPORTS_CONTROLLER_NAME = "background-scan-controller";

const ZERO_COUNTERS = { scans: 0, reconciled: 0, created: 0, updated: 0, deleted: 0, unchanged: 0 };

/** How long `start()` waits for the resource informers before campaigning anyway. */
const SYNC_TIMEOUT_MS = 30_000;

interface Term {
  queue: WorkQueue<string>;
  /** The full scan being worked through: when it was queued and the counters then. */
  scan?: { startedAt: number; before: typeof ZERO_COUNTERS };
  cancelRescan: () => void;
}

/** Creates the controller; nothing happens until `start()`. */
export function createReportsController(options: ReportsControllerOptions): ReportsController {
  const clock = options.clock ?? systemClock();
  const logger = options.logger ?? silentLogger();
  const metrics = options.metrics;
  const workers = Math.max(1, options.workers ?? 2);
  const scanIntervalMs = options.scanIntervalMs ?? 3_600_000;
  const { client, sever } = severableClient(options.client);
  const context = createScanContext({
    client,
    monotonic: () => clock.monotonic(),
    ...options.contextLimits,
  });
  const engine = typeof options.engine === "function" ? options.engine(context.loader) : options.engine;
  const cache = createPolicyCache({ engine });
  // CEL policies (policies.kyverno.io): compiled into their own store, scanned beside the others.
  const celEngine = createCelEngine({
    contextLoader: context.loader,
    clock: clock,
    namespaceLabels: (ns) => state.namespaceLabels(ns),
  });
  const celPolicies = createCelPolicyStore({ engine: celEngine });
  const slicer = createScanSlicer({ monotonic: () => clock.monotonic(), ...options.scanSlicing });
  const admission = createAdmissionResultStore({ maxResources: options.maxAdmissionResources ?? 10_000 });
  const counters = { ...ZERO_COUNTERS };
  const retrying = new Set<string>();
  const warnedAnyKind = new Set<string>();
  let inFlight = 0;
  let term: Term | undefined;
  let stopped = false;
  let drainScheduled = false;
  let unsubscribe: (() => void) | undefined;

  // Resources the admission intake named while no term was running (before leadership, or between
  // terms): reconciled when the next term starts, so their admission rows are not lost. Bounded as the
  // admission result store is.
  const pendingKeys = new Set<string>();
  const maxPending = options.maxAdmissionResources ?? 10_000;
  const enqueue = (key: string): void => term?.queue.add(key);
  const enqueueAdmitted = (key: string): void => {
    if (term !== undefined) term.queue.add(key);
    else if (pendingKeys.size < maxPending) pendingKeys.add(key);
  };
  const enqueueObject = (object: KubeObject, kind: { apiVersion: string; kind: string }): void => {
    const ref = refOfObject(object, kind.apiVersion, kind.kind);
    if (ref !== undefined) enqueue(resourceKey(ref));
  };
  const enqueueKind = (name: string): void => {
    const watched = informers.get(name);
    if (watched !== undefined) for (const o of watched.informer.list()) enqueueObject(o, watched);
  };
  /** Resources whose reports mention a policy (also those of kinds it no longer matches). */
  const enqueueReportsOf = (policy: string): void => {
    for (const entry of index.entries()) {
      if (!entry.policies.includes(policy)) continue;
      const ref = refOfScope(entry.scope);
      if (ref !== undefined) enqueue(resourceKey(ref));
    }
  };

  const state = createClusterState({
    client,
    cache,
    celPolicies,
    logger,
    exceptionNamespaces: options.exceptionNamespaces ?? [],
    ...(options.informerDelay === undefined ? {} : { informerDelay: options.informerDelay }),
    ...(options.kyvernoConfigMap === undefined ? {} : { kyvernoConfigMap: options.kyvernoConfigMap }),
  });
  const informers = createResourceInformers({
    client,
    kinds: state.kinds,
    logger,
    onEvent: (_event, object, kind) => enqueueObject(object, kind),
    ...(options.informerDelay === undefined ? {} : { delay: options.informerDelay }),
  });
  // Events of background scans: the policy (classic or CEL) found in this controller's caches.
  const scanEvents = options.events?.policyEvents((p) =>
    p.kind === "ClusterPolicy" || p.kind === "Policy"
      ? cache.get(policyRefKey(p))?.policy
      : celPolicies.get(celPolicyKey(p))?.policy,
  );
  const celReports = createCelReports({
    engine: celEngine,
    store: celPolicies,
    resourceKind: (apiVersion, resource) => state.kinds.resourceKind(apiVersion, resource),
    namespaceLabels: (ns) => state.namespaceLabels(ns),
    evaluate: (run, signal) => context.evaluate(run, signal),
    // ValidatingPolicies' scans give Events as the classic ones (same recorder, kyverno-scan).
    onScanned: (response) => scanEvents?.scan(response),
    pause: () => slicer.pause(),
    ...(metrics === undefined ? {} : { metrics }),
    monotonic: () => clock.monotonic(),
  });
  const wantedKinds = (): string[] => {
    const kinds = new Set<string>(celReports.kinds());
    for (const p of cache.policies()) {
      if (!p.policy.spec.background || !p.types.validate) continue;
      for (const k of p.kinds) if (k !== "*") kinds.add(k);
    }
    // Kinds the resource filters leave out everywhere get no report: not watched at all.
    const config = state.config();
    return [...kinds].filter((k) => !kindFilteredEverywhere(config, k)).sort();
  };
  const syncKinds = async (retryUnresolved = false): Promise<void> => {
    try {
      for (const dropped of await informers.sync(wantedKinds(), { retryUnresolved }))
        for (const o of dropped.objects) enqueueObject(o, dropped.kind);
    } catch (error) {
      logger.error({ error: String(error) }, "cannot update the watched kinds");
    }
  };

  const onPolicy = (key: string, before: CachedPolicy | undefined, after: CachedPolicy | undefined): void => {
    if (after?.kinds[0] === "*" && after.policy.spec.background && !warnedAnyKind.has(key)) {
      warnedAnyKind.add(key);
      logger.warn(
        { policy: key },
        "wildcard policy not allowed in background mode: not scanned (as upstream; set spec.background=false)",
      );
    }
    void syncKinds();
    for (const k of new Set([...(before?.kinds ?? []), ...(after?.kinds ?? [])])) enqueueKind(k);
    enqueueReportsOf(key);
  };
  state.subscribe((change) => {
    if (change.type === "policy") onPolicy(change.key, change.before, change.after);
    else if (change.type === "celPolicy" || change.type === "celException") {
      void syncKinds();
      for (const k of celReports.kinds()) enqueueKind(k);
      // Reports name a CEL policy `name` (`namespace/name` when namespaced): the key without its kind.
      if (change.type === "celPolicy") enqueueReportsOf(change.key.slice(change.key.indexOf("/") + 1));
    } else if (change.type === "exception") {
      for (const p of cache.policies()) {
        if (!change.policyNames.some((n) => matchWildcard(n, p.key))) continue;
        for (const k of p.kinds) enqueueKind(k);
        enqueueReportsOf(p.key);
      }
    } else if (change.type === "namespace") {
      for (const w of informers.all()) for (const o of w.informer.list(change.namespace)) enqueueObject(o, w);
    } else if (change.type === "config") {
      // Resource filters changed: every resource may gain or lose its report, and kinds filtered
      // everywhere are watched or not (a kind no longer watched requeues what its cache held).
      void syncKinds();
      for (const w of informers.all()) for (const o of w.informer.list()) enqueueObject(o, w);
      for (const entry of index.entries()) {
        const ref = refOfScope(entry.scope);
        if (ref !== undefined) enqueue(resourceKey(ref));
      }
    }
  });

  const index = createReportIndex({ client });
  const elector =
    options.leaderElection === false
      ? undefined
      : createLeaderElector({
          client,
          clock,
          namespace: options.leaderElection.namespace,
          name: options.leaderElection.name ?? REPORTS_LEASE_NAME,
          identity: options.leaderElection.identity,
          ...(options.leaderElection.leaseDurationMs === undefined
            ? {}
            : { leaseDurationMs: options.leaderElection.leaseDurationMs }),
          ...(options.leaderElection.renewDeadlineMs === undefined
            ? {}
            : { renewDeadlineMs: options.leaderElection.renewDeadlineMs }),
          ...(options.leaderElection.retryPeriodMs === undefined
            ? {}
            : { retryPeriodMs: options.leaderElection.retryPeriodMs }),
          onStartedLeading: () => startTerm(),
          onStoppedLeading: () => endTerm(false),
          onNewLeader: (identity) => logger.info({ leader: identity }, "new leader"),
          onError: (f) =>
            logger.debug({ reason: f.reason, message: f.message }, "leader election request failed"),
        });
  const canWrite = (): boolean => term !== undefined && (elector === undefined || elector.isLeader());
  const count = (outcome: WriteOutcome): void => {
    if (outcome !== "skipped") counters[outcome]++;
  };
  const writer = createReportWriter({ client, index, canWrite });
  const ephemeral = options.ephemeralReports
    ? createEphemeralIntake({
        client,
        logger,
        onReport: (report) =>
          ingestEphemeralReport(report, { cache, admission, enqueue: enqueueAdmitted, cel: celReports }),
        ...(options.informerDelay === undefined ? {} : { delay: options.informerDelay }),
      })
    : undefined;
  const reconcile = createReconciler({
    engine,
    cel: celReports,
    context,
    cache,
    informers,
    namespaceLabels: (ns) => state.namespaceLabels(ns),
    filtered: (ref) => {
      const slash = ref.apiVersion.lastIndexOf("/");
      return isFilteredResource(state.config(), {
        group: slash < 0 ? "" : ref.apiVersion.slice(0, slash),
        version: ref.apiVersion.slice(slash + 1),
        kind: ref.kind,
        subresource: "",
        namespace: ref.namespace,
        name: ref.name,
      });
    },
    writer,
    admission,
    client,
    logger,
    metrics,
    limits: options.limits ?? DEFAULT_REPORT_LIMITS,
    skipValidateScans: options.reporting !== undefined && !options.reporting.has("validate"),
    monotonic: () => clock.monotonic(),
    slicer,
    onOutcome: count,
    ...(scanEvents ? { events: scanEvents } : {}),
  });

  const handle = async (key: string, context: ReconcileContext) => {
    retrying.delete(key);
    inFlight++;
    try {
      const uid = parseResourceKey(key)?.uid;
      const owed = uid === undefined ? undefined : ephemeral?.owed(uid);
      const result = await reconcile(key, context);
      if (result !== undefined) retrying.add(key);
      // The report now holds what that ephemeral report said: it can go (a newer one stays).
      else if (owed !== undefined && canWrite()) await ephemeral?.settled(owed, context.signal);
      return result;
    } catch (error) {
      retrying.add(key);
      logger.error({ key, error: String(error) }, "reconcile failed");
      return { error };
    } finally {
      inFlight--;
      counters.reconciled++;
      scanProgress();
    }
  };

  /** Logs the end of a full scan once nothing is queued, in flight or waiting for a retry. */
  const scanProgress = (): void => {
    const t = term;
    if (t?.scan === undefined || t.queue.len() > 0 || inFlight > 0 || retrying.size > 0) return;
    const { startedAt, before } = t.scan;
    t.scan = undefined;
    metrics?.scanCompleted((clock.monotonic() - startedAt) / 1000, new Date(clock.now()));
    const delta = (k: keyof typeof ZERO_COUNTERS) => counters[k] - before[k];
    logger.info(
      {
        durationMs: Math.round(clock.monotonic() - startedAt),
        reconciled: delta("reconciled"),
        created: delta("created"),
        updated: delta("updated"),
        deleted: delta("deleted"),
        unchanged: delta("unchanged"),
        reports: index.size,
      },
      "full scan done",
    );
  };

  /** Queues every watched resource and every known report (reports of deleted resources go too). */
  const fullScan = async (t: Term): Promise<void> => {
    const startedAt = clock.monotonic();
    await syncKinds(true);
    context.clear();
    const loaded = await index.load();
    if (term !== t) return;
    if (!loaded.ok) logger.warn({ reason: loaded.reason, message: loaded.message }, "cannot list reports");
    let resources = 0;
    const before = { ...counters, scans: counters.scans + 1 };
    // Tens of thousands of keys: queued in slices, so probes and watch events are answered meanwhile.
    for (const w of informers.all()) {
      await forEachSliced(w.informer.list(), slicer, (o) => {
        enqueueObject(o, w);
        resources++;
      });
    }
    await forEachSliced([...index.entries()], slicer, (entry) => {
      const ref = refOfScope(entry.scope);
      if (ref !== undefined) enqueue(resourceKey(ref));
    });
    if (term !== t) return;
    counters.scans++;
    t.scan = { startedAt, before };
    scanProgress();
    logger.info({ resources, reports: index.size, kinds: informers.all().length }, "full scan queued");
  };

  const scheduleRescan = (t: Term): void => {
    t.cancelRescan = clock.after(scanIntervalMs, () => {
      if (term !== t) return;
      void fullScan(t);
      scheduleRescan(t);
    });
  };

  function startTerm(): void {
    if (stopped || term !== undefined) return;
    const queue = createWorkQueue<string>({
      name: REPORTS_CONTROLLER_NAME,
      clock,
      onReconcile: (e) => metrics?.reconcile(e.controller),
      onRequeue: (e) => metrics?.requeue(e.controller, e.retries),
      onDrop: (e) => {
        retrying.delete(e.key);
        metrics?.drop(e.controller);
        logger.error({ key: e.key, retries: e.retries, error: String(e.error) }, "giving up on a resource");
      },
    });
    const t: Term = { queue, cancelRescan: () => {} };
    term = t;
    logger.info({ workers }, "leading: reconciling reports");
    for (const key of pendingKeys) queue.add(key);
    pendingKeys.clear();
    void queue.process(workers, handle);
    void fullScan(t);
    scheduleRescan(t);
  }

  async function endTerm(drain: boolean): Promise<void> {
    const t = term;
    if (t === undefined) return;
    t.cancelRescan();
    await t.queue.shutdown({ drain });
    if (term === t) term = undefined;
    retrying.clear();
  }

  const drainAdmission = (): void => {
    drainScheduled = false;
    const source = options.admissionResults;
    for (let batch = source?.drain(500) ?? []; batch.length > 0; batch = source?.drain(500) ?? [])
      for (const result of batch) {
        const deps = { cache, admission, enqueue: enqueueAdmitted, cel: celReports };
        // A CREATE's mutating webhook results name the object before it had a uid: look it up once stored.
        if (awaitsUid(result))
          void resolveCreatedUid(options.client, result).then(
            (r) => r && !stopped && ingestAdmissionResult(r, deps),
          );
        else ingestAdmissionResult(result, deps);
      }
  };
  const scheduleDrain = (): void => {
    if (drainScheduled || stopped) return;
    drainScheduled = true;
    clock.after(0, drainAdmission);
  };

  return {
    async start() {
      metrics?.setGauges({
        queueDepth: () => new Map([[REPORTS_CONTROLLER_NAME, term?.queue.len() ?? 0]]),
        reports: () => index.size,
      });
      await state.start();
      // Results are taken once the policies are loaded: a result whose policy the cache does not hold
      // yet would be dropped (the background controller's generateExisting results can come first).
      unsubscribe = options.admissionResults?.onAvailable(scheduleDrain);
      scheduleDrain();
      ephemeral?.start();
      await syncKinds();
      // Kinds that cannot be listed (RBAC, a failing aggregated API) must not keep this replica from
      // campaigning: their keys wait for the sync in the queue.
      let cancel = (): void => {};
      const timedOut = new Promise<boolean>((resolve) => {
        cancel = clock.after(SYNC_TIMEOUT_MS, () => resolve(true));
      });
      if (await Promise.race([informers.synced().then(() => false), timedOut]))
        logger.warn(
          {
            kinds: informers
              .all()
              .filter((w) => !w.informer.hasSynced())
              .map((w) => w.kind),
          },
          "informers not synced yet",
        );
      cancel();
      scheduleDrain();
      if (elector !== undefined) elector.start();
      else startTerm();
    },
    async stop(stopOptions) {
      if (stopped) return;
      stopped = true;
      unsubscribe?.();
      await endTerm(stopOptions?.drain !== false);
      await elector?.release();
      await Promise.all([informers.stop(), state.stop(), ephemeral?.stop()]);
    },
    async abort() {
      if (stopped) return;
      stopped = true;
      unsubscribe?.();
      sever();
      const t = term;
      term = undefined;
      t?.cancelRescan();
      await Promise.all([
        t?.queue.shutdown({ drain: false }),
        elector?.release(),
        informers.stop(),
        state.stop(),
        ephemeral?.stop(),
      ]);
    },
    rescan() {
      if (term !== undefined) void fullScan(term);
    },
    isLeader: () => term !== undefined && (elector === undefined || elector.isLeader()),
    stats(): ReportsControllerStats {
      return {
        leading: term !== undefined && (elector === undefined || elector.isLeader()),
        queued: term?.queue.len() ?? 0,
        inFlight,
        retrying: retrying.size,
        ...counters,
        reports: index.size,
        watchedKinds: informers.all().map((w) => `${w.apiVersion}/${w.kind}`),
        unresolvedKinds: informers.unresolved(),
      };
    },
  };
}
