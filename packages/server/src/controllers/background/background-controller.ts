/**
 * The background controller (`kyverno-ts background`): processes UpdateRequests with `workers`
 * concurrent workers while it leads on the `kyverno-background-controller` Lease. An UpdateRequest
 * without a state is set Pending first; a Pending one is processed (see `process.ts`); its outcome
 * `Completed` or `Skip` is written on its status (one write, so watchers see it). As upstream, a
 * Completed one is then deleted and a Skip one is kept (`kubectl get ur` shows why nothing was done;
 * a later request on the same trigger sets it Pending again, see `ur-intake.ts`); a failure is recorded in the
 * UpdateRequest's status (`Failed`, message, `retryCount`) and retried with exponential backoff, and
 * an UpdateRequest that failed more than `MAX_RETRIES` times is deleted (as upstream) after an error
 * log. Pending UpdateRequests outlive the process: a restarted or new leader lists and finishes them,
 * and writes are idempotent (a generated object that exists is compared, not created twice).
 */
import type { KubeObject } from "@kyverno-ts/api";
import { createCelEngine, type Engine } from "@kyverno-ts/engine";
import {
  createInformer,
  createLeaderElector,
  createWorkQueue,
  exponentialRateLimiter,
  type Informer,
  type KubeClient,
  type LeaderElector,
  type WorkQueue,
} from "@kyverno-ts/kube";
import type { ServerClock } from "../../clock.js";
import type { CelPolicyKind } from "../../cluster-state/cel-feed.js";
import { type ClusterState, createClusterState } from "../../cluster-state/cluster-state.js";
import type { BackgroundEvents } from "../../events/background-events.js";
import { createScanContext } from "../../external-data/scan-context.js";
import type { Logger } from "../../logger.js";
import { createCelPolicyStore } from "../../policycache/cel-policy-store.js";
import { createPolicyCache, type PolicyCache } from "../../policycache/policy-cache.js";
import type { AdmissionResultSink } from "../admission/results.js";
import { processCelGenerate } from "./cel-generate.js";
import { createCelGenerating } from "./cel-generating.js";
import { processCelMutate } from "./cel-mutate.js";
import { createCelMutating } from "./cel-mutating.js";
import { createDownstreamWatch } from "./downstream-watch.js";
import { BACKGROUND_CONTROLLER_NAME, type BackgroundMetrics } from "./metrics.js";
import { createPolicyEvents } from "./policy-events.js";
import { type ProcessOutcome, processUpdateRequest } from "./process.js";
import {
  asUpdateRequest,
  celPolicyKindOf,
  celRequestPolicyKey,
  type UpdateRequest,
  UR_API_VERSION,
  UR_KIND,
} from "./update-request.js";
import { createUpdateRequestIntake } from "./ur-intake.js";
import { MAX_RETRIES, reconcileUpdateRequest } from "./ur-reconcile.js";

/** The Lease replicas elect a leader on. */
export const BACKGROUND_LEASE_NAME = "kyverno-background-controller";

/**
 * The `policies.kyverno.io` kinds the background controller processes (GeneratingPolicies and
 * mutate-existing MutatingPolicies): the only CEL kinds its cluster state watches.
 */
export const BACKGROUND_CEL_KINDS: readonly CelPolicyKind[] = [
  "GeneratingPolicy",
  "NamespacedGeneratingPolicy",
  "MutatingPolicy",
  "NamespacedMutatingPolicy",
];

/** Options of `createBackgroundController`. */
export interface BackgroundControllerOptions {
  client: KubeClient;
  engine: Engine;
  /**
   * Where the results of generate and mutate-existing rules go for the reports (the reports
   * controller's in-process queue, or a queue an ephemeral report publisher drains); none: not reported.
   */
  results?: AdmissionResultSink;
  /** Kyverno's namespace: UpdateRequests and the Lease live there. */
  namespace: string;
  /** Concurrent UpdateRequests (`--genWorkers`, default 10). */
  workers: number;
  /** Namespaces PolicyExceptions are accepted from (none: ignored). */
  exceptionNamespaces: readonly string[];
  /** This replica's identity, or `false` to lead without electing. */
  leaderElection:
    | false
    | { identity: string; leaseDurationMs?: number; renewDeadlineMs?: number; retryPeriodMs?: number };
  /** The controller's user, named in permission failures. */
  user: string;
  /** First retry delay of a failed UpdateRequest (default 1 s; doubles per failure). */
  retryBaseMs?: number;
  clock: ServerClock;
  logger: Logger;
  metrics?: BackgroundMetrics;
  /** Kyverno's ConfigMap (watched; its `generateSuccessEvents` gates the success Events). */
  kyvernoConfigMap?: { namespace: string; name: string };
  /** Kubernetes Events of processed UpdateRequests; the controller's state gives the config and policies. */
  events?: (state: {
    config: () => { generateSuccessEvents?: boolean };
    policyObject: (request: { requestType: string; policy: string }) => KubeObject | undefined;
  }) => BackgroundEvents;
}

/** A running background controller. */
export interface BackgroundController {
  /** Starts the informers; resolves once they have listed (then campaigns for the Lease). */
  start(): Promise<void>;
  /** Steps down and finishes the UpdateRequests in flight. */
  stop(): Promise<void>;
  isLeader(): boolean;
  synced(): boolean;
  readonly cache: PolicyCache;
  readonly state: ClusterState;
}

/**
 * What the controller evaluates with: the policy cache, a CEL engine and policy store of its own
 * (GeneratingPolicies and mutate-existing MutatingPolicies, for `cel-generate` and `cel-mutate`
 * UpdateRequests), all fed by the shared cluster state, and the context loader.
 */
function createEvaluation(options: BackgroundControllerOptions) {
  const { client, engine, logger, clock } = options;
  const cache = createPolicyCache({ engine });
  const celEngine = createCelEngine({ clock, namespaceLabels: (ns) => state.namespaceLabels(ns) });
  const celPolicies = createCelPolicyStore({ engine: celEngine });
  const state = createClusterState({
    client,
    cache,
    logger,
    clock,
    exceptionNamespaces: options.exceptionNamespaces,
    cachedConfigMaps: true,
    celPolicies,
    celKinds: BACKGROUND_CEL_KINDS,
    ...(options.kyvernoConfigMap ? { kyvernoConfigMap: options.kyvernoConfigMap } : {}),
  });
  const scan = createScanContext({
    client,
    monotonic: () => clock.monotonic(),
    cachedConfigMap: (ns, name) => state.cachedConfigMap(ns, name),
  });
  const namespaceLabels = (ns: string) => state.namespaceLabels(ns);
  return { engine, cache, celEngine, celPolicies, state, scan, namespaceLabels };
}
type Evaluation = ReturnType<typeof createEvaluation>;

/**
 * What policy changes ask of the leader (see `policy-events.ts`, `cel-generating.ts`,
 * `cel-mutating.ts`) and the downstream watch, subscribed to the cluster state's changes.
 */
function createReactions(
  options: BackgroundControllerOptions,
  evaluation: Evaluation,
  intake: ReturnType<typeof createUpdateRequestIntake>,
  isLeader: () => boolean,
) {
  const { client, logger } = options;
  const { cache, engine, state } = evaluation;
  const downstream = createDownstreamWatch({ client, cache, logger, intents: intake });
  const policyEvents = createPolicyEvents({
    client,
    cache,
    engine,
    logger,
    intents: intake,
    isLeader,
    resync: (key) => downstream.resync(key),
    exists: (key) => state.policyObject(key) !== undefined,
  });
  // GeneratingPolicies and mutate-existing MutatingPolicies turn existing triggers into intents alike.
  const celIntentDeps = {
    client,
    store: evaluation.celPolicies,
    engine: evaluation.celEngine,
    logger,
    intents: intake,
    isLeader,
    namespaceLabels: evaluation.namespaceLabels,
  };
  const celGenerating = createCelGenerating(celIntentDeps);
  const celMutating = createCelMutating(celIntentDeps);
  state.subscribe((change) => {
    if (change.type === "policy") {
      downstream.policyChanged();
      void policyEvents.changed(change.key, change.before, change.after);
    } else if (change.type === "celPolicy") {
      void celGenerating.changed(change.key);
      void celMutating.changed(change.key);
    }
  });
  return {
    downstream,
    celGenerating,
    leaderStarted() {
      void policyEvents.leaderStarted();
      void celGenerating.leaderStarted();
      void celMutating.leaderStarted();
    },
    stop: () => Promise.all([downstream.stop(), celGenerating.stop()]),
  };
}
type Reactions = ReturnType<typeof createReactions>;

/** One processor per request type: classic generate / mutate-existing, `cel-generate`, `cel-mutate`. */
function createProcessor(options: BackgroundControllerOptions, evaluation: Evaluation, reactions: Reactions) {
  const deps = {
    client: options.client,
    cache: evaluation.cache,
    engine: evaluation.engine,
    scan: evaluation.scan,
    logger: options.logger,
    namespaceLabels: evaluation.namespaceLabels,
    user: options.user,
    downstreamPresence: (object: KubeObject) => reactions.downstream.presence(object),
  };
  const celDeps = {
    ...deps,
    celEngine: evaluation.celEngine,
    celPolicies: evaluation.celPolicies,
    generatedKinds: reactions.celGenerating.kinds,
    monotonic: () => options.clock.monotonic(),
    ...(options.metrics ? { onEvaluated: options.metrics.generatingPolicyExecution } : {}),
  };
  return (ur: UpdateRequest, signal: AbortSignal): Promise<ProcessOutcome> => {
    switch (ur.spec.requestType) {
      case "cel-generate":
        return processCelGenerate(celDeps, ur, signal);
      case "cel-mutate":
        return processCelMutate(celDeps, ur, signal);
      default:
        return processUpdateRequest(deps, ur, signal);
    }
  };
}

/** The Kubernetes Events of processed UpdateRequests, over the state's config and policies. */
function createEvents(
  options: BackgroundControllerOptions,
  evaluation: Evaluation,
): BackgroundEvents | undefined {
  const { state, cache, celPolicies } = evaluation;
  return options.events?.({
    config: () => state.config(),
    policyObject: ({ requestType, policy }) =>
      (requestType === "cel-generate" || requestType === "cel-mutate"
        ? celPolicies.get(celRequestPolicyKey(requestType, policy))?.policy
        : cache.get(policy)?.policy) as KubeObject | undefined,
  });
}

/** Whether an UpdateRequest waits to be processed (no state yet, or Pending). */
const waiting = (ur: UpdateRequest | undefined): boolean =>
  ur !== undefined && (ur.status?.state === undefined || ur.status.state === "Pending");

/** The UpdateRequests of Kyverno's namespace; those waiting (no state or Pending) go to `enqueue`. */
function watchUpdateRequests(client: KubeClient, namespace: string, enqueue: (name: string) => void) {
  const informer = createInformer<KubeObject>({
    client,
    apiVersion: UR_API_VERSION,
    kind: UR_KIND,
    namespace,
  });
  const enqueueIfPending = (object: KubeObject): void => {
    if (waiting(asUpdateRequest(object))) enqueue(object.metadata?.name ?? "");
  };
  informer.on("add", enqueueIfPending);
  informer.on("update", enqueueIfPending);
  return informer;
}

/** The work queue of one leadership term: `workers` reconciles at a time, failures retried with backoff. */
function createTermQueue(options: BackgroundControllerOptions): WorkQueue<string> {
  const { metrics } = options;
  return createWorkQueue<string>({
    name: BACKGROUND_CONTROLLER_NAME,
    rateLimiter: exponentialRateLimiter<string>({ baseMs: options.retryBaseMs ?? 1000, maxMs: 60_000 }),
    maxRetries: MAX_RETRIES + 1,
    clock: options.clock,
    onReconcile: (e) => metrics?.reconcile(e.controller),
    onRequeue: (e) => metrics?.requeue(e.controller, e.retries),
    onDrop: (e) => metrics?.drop(e.controller),
  });
}

/** Campaigns for the Lease (or leads at once without election). */
function lead(
  options: BackgroundControllerOptions,
  onStartedLeading: (signal: AbortSignal) => void,
  onStoppedLeading: () => Promise<void>,
): LeaderElector | undefined {
  if (options.leaderElection === false) {
    onStartedLeading(new AbortController().signal);
    return undefined;
  }
  const { logger } = options;
  const le = options.leaderElection;
  const elector = createLeaderElector({
    client: options.client,
    namespace: options.namespace,
    name: BACKGROUND_LEASE_NAME,
    identity: le.identity,
    clock: options.clock,
    ...(le.leaseDurationMs !== undefined ? { leaseDurationMs: le.leaseDurationMs } : {}),
    ...(le.renewDeadlineMs !== undefined ? { renewDeadlineMs: le.renewDeadlineMs } : {}),
    ...(le.retryPeriodMs !== undefined ? { retryPeriodMs: le.retryPeriodMs } : {}),
    onStartedLeading,
    onStoppedLeading,
    onNewLeader: (leader) => logger.info({ leader }, "leader observed"),
    onError: (failure) =>
      logger.warn({ reason: failure.reason, message: failure.message }, "leader election"),
  });
  elector.start();
  return elector;
}

/** Creates the controller; nothing runs before `start()`. */
export function createBackgroundController(options: BackgroundControllerOptions): BackgroundController {
  const { client, namespace, logger, clock, metrics } = options;
  let queue: WorkQueue<string> | undefined;
  let leading = false;
  const evaluation = createEvaluation(options);
  const { cache, state } = evaluation;
  const intake = createUpdateRequestIntake({ client, namespace, logger });
  const requests: Informer<KubeObject> = watchUpdateRequests(client, namespace, (name) => queue?.add(name));
  const reactions = createReactions(options, evaluation, intake, () => leading);
  const reconcileDeps = {
    client,
    namespace,
    logger,
    clock,
    metrics,
    events: createEvents(options, evaluation),
    results: options.results,
    get: (name: string) => asUpdateRequest(requests.get(namespace, name)),
    process: createProcessor(options, evaluation, reactions),
    policyKindReady: (ur: UpdateRequest) => {
      const type = ur.spec.requestType;
      return type === "cel-generate" || type === "cel-mutate"
        ? evaluation.state.celKindSynced(celPolicyKindOf(type, ur.spec.policy))
        : true;
    },
  };

  const startLeading = (signal: AbortSignal): void => {
    leading = true;
    const q = createTermQueue(options);
    queue = q;
    void q.process(options.workers, (name, ctx) => reconcileUpdateRequest(reconcileDeps, name, ctx.signal));
    // Everything not finished: new ones, and those a previous leader left (crash, handover).
    for (const o of requests.list(namespace)) {
      const ur = asUpdateRequest(o);
      if (ur !== undefined) q.add(ur.metadata.name);
    }
    void reactions.leaderStarted();
    signal.addEventListener("abort", () => void stopLeading(), { once: true });
  };
  const stopLeading = async (): Promise<void> => {
    leading = false;
    const q = queue;
    queue = undefined;
    await q?.shutdown();
  };

  metrics?.setGauges({
    pending: () => requests.list(namespace).filter((o) => waiting(asUpdateRequest(o))).length,
    queueDepth: () => queue?.len() ?? 0,
  });

  let elector: LeaderElector | undefined;
  return {
    cache,
    state,
    async start() {
      await Promise.all([state.start(), requests.start()]);
      reactions.downstream.policyChanged();
      elector = lead(options, startLeading, stopLeading);
    },
    async stop() {
      if (elector) await elector.release();
      else await stopLeading();
      await intake.stop();
      await Promise.all([reactions.stop(), state.stop(), requests.stop()]);
    },
    isLeader: () => leading,
    synced: () => state.synced() && requests.hasSynced(),
  };
}
