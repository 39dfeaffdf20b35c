/**
 * Building a reports controller's parts from its options: the client it may be cut off from, the
 * engines and policy caches (classic and CEL), the cluster state and resource informers (whose changes
 * requeue resources), the report index and writer, the reconcile function, the leader elector and the
 * ephemeral report intake. The callbacks that reach the running controller (requeues, terms) go through
 * `self`, which is only called once the controller exists.
 */
import { createCelEngine, type Engine } from "@kyverno-ts/engine";
import { createLeaderElector, type KubeClient, type LeaderElector } from "@kyverno-ts/kube";
import { type ServerClock, systemClock } from "../../clock.js";
import { type ClusterState, createClusterState } from "../../cluster-state/cluster-state.js";
import type { PolicyEvents } from "../../events/policy-events.js";
import { createScanContext } from "../../external-data/scan-context.js";
import { type Logger, silentLogger } from "../../logger.js";
import { celPolicyKey, createCelPolicyStore } from "../../policycache/cel-policy-store.js";
import { createPolicyCache, policyRefKey } from "../../policycache/policy-cache.js";
import { DEFAULT_REPORT_LIMITS } from "../../reports/report-builder.js";
import { createReportIndex } from "../../reports/report-index.js";
import { createReportWriter } from "../../reports/report-writer.js";
import { serverVersion } from "../../version.js";
import { isFilteredResource } from "../admission/filters.js";
import { ingestEphemeralReport } from "./admission-intake.js";
import { type AdmissionResultStore, createAdmissionResultStore } from "./admission-results.js";
import { createCelReports, REPORTED_CEL_KINDS } from "./cel-reports.js";
import {
  type ControllerParts,
  type ControllerState,
  canWrite,
  REPORTS_LEASE_NAME,
} from "./controller-state.js";
import { createEphemeralIntake } from "./ephemeral-intake.js";
import { createReconciler } from "./reconciler.js";
import { enqueueAdmitted, enqueueObject, onClusterChange } from "./requeue.js";
import { createResourceInformers, type ResourceInformers } from "./resource-informers.js";
import type { ResourceRef } from "./resource-key.js";
import { createScanInputs } from "./scan-inputs.js";
import { createScanSlicer, type ScanSlicer } from "./scan-slicer.js";
import { endTerm, startTerm } from "./scan-term.js";
import { severableClient } from "./severable-client.js";
import type { ReportsControllerOptions } from "./types.js";

/** What the parts are built over. */
interface Base {
  options: ReportsControllerOptions;
  clock: ServerClock;
  logger: Logger;
  client: KubeClient;
  self: () => ControllerState;
}

/** `informerDelay`, as the components that take it name it. */
const informerDelayOf = (options: ReportsControllerOptions) =>
  options.informerDelay === undefined ? {} : { informerDelay: options.informerDelay };
const delayOf = (options: ReportsControllerOptions) =>
  options.informerDelay === undefined ? {} : { delay: options.informerDelay };

/** The scan context, the classic engine and policy cache, the CEL engine and policy store, the cluster state. */
function evaluationParts({ options, clock, logger, client, self }: Base) {
  const context = createScanContext({ client, monotonic: () => clock.monotonic(), ...options.contextLimits });
  const engine: Engine =
    typeof options.engine === "function" ? options.engine(context.loader) : options.engine;
  const cache = createPolicyCache({ engine });
  // CEL policies (policies.kyverno.io): compiled into their own store, scanned beside the others.
  const celEngine = createCelEngine({
    contextLoader: context.loader,
    clock,
    namespaceLabels: (ns) => cluster.namespaceLabels(ns),
  });
  const celPolicies = createCelPolicyStore({ engine: celEngine });
  const cluster: ClusterState = createClusterState({
    client,
    cache,
    celPolicies,
    celKinds: REPORTED_CEL_KINDS,
    logger,
    exceptionNamespaces: options.exceptionNamespaces ?? [],
    ...informerDelayOf(options),
    ...(options.kyvernoConfigMap === undefined ? {} : { kyvernoConfigMap: options.kyvernoConfigMap }),
  });
  cluster.subscribe((change) => onClusterChange(self(), change));
  return { context, engine, cache, celEngine, celPolicies, cluster };
}

/** The Lease election, or none when `leaderElection` is false. */
function electorOf({ options, clock, logger, client, self }: Base): LeaderElector | undefined {
  const election = options.leaderElection;
  if (election === false) return undefined;
  return createLeaderElector({
    client,
    clock,
    namespace: election.namespace,
    name: election.name ?? REPORTS_LEASE_NAME,
    identity: election.identity,
    ...(election.leaseDurationMs === undefined ? {} : { leaseDurationMs: election.leaseDurationMs }),
    ...(election.renewDeadlineMs === undefined ? {} : { renewDeadlineMs: election.renewDeadlineMs }),
    ...(election.retryPeriodMs === undefined ? {} : { retryPeriodMs: election.retryPeriodMs }),
    onStartedLeading: () => startTerm(self()),
    onStoppedLeading: () => endTerm(self(), false),
    onNewLeader: (identity) => logger.info({ leader: identity }, "new leader"),
    onError: (f) => logger.debug({ reason: f.reason, message: f.message }, "leader election request failed"),
  });
}

/** Whether Kyverno's ConfigMap (`resourceFilters`) filters a resource out. */
function filteredBy(cluster: ClusterState): (ref: ResourceRef) => boolean {
  return (ref) => {
    const slash = ref.apiVersion.lastIndexOf("/");
    return isFilteredResource(cluster.config(), {
      group: slash < 0 ? "" : ref.apiVersion.slice(0, slash),
      version: ref.apiVersion.slice(slash + 1),
      kind: ref.kind,
      subresource: "",
      namespace: ref.namespace,
      name: ref.name,
    });
  };
}

/** What the scans are made of beyond the evaluation parts. */
interface ScanInputs extends ReturnType<typeof evaluationParts> {
  slicer: ScanSlicer;
  admission: AdmissionResultStore;
  informers: ResourceInformers;
  scanEvents: PolicyEvents | undefined;
}

/** The CEL scans, the report index and writer, and the reconcile function over them. */
function scanParts({ options, clock, logger, client, self }: Base, inputs: ScanInputs) {
  const {
    context,
    engine,
    cache,
    celEngine,
    celPolicies,
    cluster,
    slicer,
    admission,
    informers,
    scanEvents,
  } = inputs;
  const metrics = options.metrics;
  const celReports = createCelReports({
    engine: celEngine,
    store: celPolicies,
    resourceKind: (apiVersion, resource) => cluster.kinds.resourceKind(apiVersion, resource),
    namespaceLabels: (ns) => cluster.namespaceLabels(ns),
    evaluate: (run, signal) => context.evaluate(run, signal),
    // ValidatingPolicies' scans give Events as the classic ones (same recorder, kyverno-scan).
    onScanned: (response) => scanEvents?.scan(response),
    pause: () => slicer.pause(),
    ...(metrics === undefined ? {} : { metrics }),
    monotonic: () => clock.monotonic(),
  });
  const index = createReportIndex({ client });
  const writer = createReportWriter({ client, index, canWrite: () => canWrite(self()) });
  const reconcile = createReconciler({
    engine,
    cel: celReports,
    context,
    cache,
    informers,
    namespaceLabels: (ns) => cluster.namespaceLabels(ns),
    filtered: filteredBy(cluster),
    writer,
    admission,
    client,
    logger,
    metrics,
    limits: options.limits ?? DEFAULT_REPORT_LIMITS,
    skipValidateScans: options.reporting !== undefined && !options.reporting.has("validate"),
    monotonic: () => clock.monotonic(),
    slicer,
    onOutcome: (outcome) => {
      if (outcome !== "skipped") self().counters[outcome]++;
    },
    ...(scanEvents ? { events: scanEvents } : {}),
    inputs: createScanInputs({
      cache,
      limits: options.limits ?? DEFAULT_REPORT_LIMITS,
      version: serverVersion(),
    }),
  });
  return { celReports, index, reconcile };
}

/** Builds every part; nothing runs until the controller starts. */
export function createControllerParts(
  options: ReportsControllerOptions,
  self: () => ControllerState,
): ControllerParts {
  const clock = options.clock ?? systemClock();
  const logger = options.logger ?? silentLogger();
  const metrics = options.metrics;
  const { client, sever } = severableClient(options.client);
  const base: Base = { options, clock, logger, client, self };
  const evaluation = evaluationParts(base);
  const { context, cache, celPolicies, cluster } = evaluation;
  const slicer = createScanSlicer({ monotonic: () => clock.monotonic(), ...options.scanSlicing });
  const admission = createAdmissionResultStore({ maxResources: options.maxAdmissionResources ?? 10_000 });
  const informers = createResourceInformers({
    client,
    kinds: cluster.kinds,
    logger,
    onEvent: (_event, object, kind) => enqueueObject(self(), object, kind),
    ...delayOf(options),
  });
  // Events of background scans: the policy (classic or CEL) found in this controller's caches.
  const scanEvents: PolicyEvents | undefined = options.events?.policyEvents((p) =>
    p.kind === "ClusterPolicy" || p.kind === "Policy"
      ? cache.get(policyRefKey(p))?.policy
      : celPolicies.get(celPolicyKey(p))?.policy,
  );
  const { celReports, index, reconcile } = scanParts(base, {
    ...evaluation,
    slicer,
    admission,
    informers,
    scanEvents,
  });
  const ephemeral = options.ephemeralReports
    ? createEphemeralIntake({
        client,
        logger,
        onReport: (report) =>
          ingestEphemeralReport(report, {
            cache,
            admission,
            enqueue: (key) => enqueueAdmitted(self(), key),
            cel: celReports,
          }),
        ...delayOf(options),
      })
    : undefined;
  return {
    options,
    clock,
    logger,
    metrics,
    workers: Math.max(1, options.workers ?? 2),
    scanIntervalMs: options.scanIntervalMs ?? 3_600_000,
    sever,
    context,
    cache,
    celPolicies,
    celReports,
    admission,
    cluster,
    informers,
    index,
    slicer,
    elector: electorOf(base),
    ephemeral,
    reconcile,
  };
}
