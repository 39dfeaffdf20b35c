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
import { createCelEngine, type Engine, type PolicyResponse } from "@kyverno-ts/engine";
import {
  createInformer,
  createLeaderElector,
  createWorkQueue,
  exponentialRateLimiter,
  type KubeClient,
  type LeaderElector,
  type WorkQueue,
} from "@kyverno-ts/kube";
import type { ServerClock } from "../../clock.js";
import { type ClusterState, createClusterState } from "../../cluster-state/cluster-state.js";
import type { BackgroundEvents } from "../../events/background-events.js";
import { createScanContext } from "../../external-data/scan-context.js";
import type { Logger } from "../../logger.js";
import { createCelPolicyStore } from "../../policycache/cel-policy-store.js";
import { createPolicyCache, type PolicyCache } from "../../policycache/policy-cache.js";
import { type AdmissionResultSink, backgroundResultOf } from "../admission/results.js";
import { processCelGenerate } from "./cel-generate.js";
import { createCelGenerating } from "./cel-generating.js";
import { processCelMutate } from "./cel-mutate.js";
import { createCelMutating } from "./cel-mutating.js";
import { createCelPolicyWatch } from "./cel-policy-watch.js";
import { createDownstreamWatch } from "./downstream-watch.js";
import { BACKGROUND_CONTROLLER_NAME, type BackgroundMetrics } from "./metrics.js";
import { createPolicyEvents } from "./policy-events.js";
import { type ProcessOutcome, processUpdateRequest } from "./process.js";
import {
  asUpdateRequest,
  celRequestPolicyKey,
  isCelRequestType,
  rulesOf,
  type UpdateRequest,
  UR_API_VERSION,
  UR_KIND,
} from "./update-request.js";
import { createUpdateRequestIntake, type UpdateRequestIntake } from "./ur-intake.js";
import { finishUpdateRequest, removeUpdateRequest } from "./ur-outcome.js";

/** The Lease replicas elect a leader on. */
export const BACKGROUND_LEASE_NAME = "kyverno-background-controller";
/** Failures after which an UpdateRequest is given up and deleted (upstream: 3). */
export const MAX_RETRIES = 3;

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

/** Creates the controller; nothing runs before `start()`. */
export function createBackgroundController(options: BackgroundControllerOptions): BackgroundController {
  const { client, engine, namespace, logger, clock, metrics } = options;
  const cache = createPolicyCache({ engine });
  // GeneratingPolicies and mutate-existing MutatingPolicies (`cel-generate` and `cel-mutate`
  // UpdateRequests): compiled by a CEL engine of their own.
  const celEngine = createCelEngine({
    clock: clock,
    namespaceLabels: (ns) => state.namespaceLabels(ns),
  });
  const celPolicies = createCelPolicyStore({ engine: celEngine });
  const state = createClusterState({
    client,
    cache,
    logger,
    exceptionNamespaces: options.exceptionNamespaces,
    cachedConfigMaps: true,
    ...(options.kyvernoConfigMap ? { kyvernoConfigMap: options.kyvernoConfigMap } : {}),
  });
  const events = options.events?.({
    config: () => state.config(),
    policyObject: ({ requestType, policy }) =>
      (requestType === "cel-generate" || requestType === "cel-mutate"
        ? celPolicies.get(celRequestPolicyKey(requestType, policy))?.policy
        : cache.get(policy)?.policy) as KubeObject | undefined,
  });
  const scan = createScanContext({
    client,
    monotonic: () => clock.monotonic(),
    cachedConfigMap: (ns, name) => state.cachedConfigMap(ns, name),
  });
  const requests = createInformer<KubeObject>({
    client,
    apiVersion: UR_API_VERSION,
    kind: UR_KIND,
    namespace,
  });
  const intake: UpdateRequestIntake = createUpdateRequestIntake({ client, namespace, logger });
  let queue: WorkQueue<string> | undefined;
  let leading = false;

  const waiting = (ur: UpdateRequest | undefined): boolean =>
    ur !== undefined && (ur.status?.state === undefined || ur.status.state === "Pending");
  const enqueueIfPending = (object: KubeObject): void => {
    if (waiting(asUpdateRequest(object))) queue?.add(object.metadata?.name ?? "");
  };
  requests.on("add", enqueueIfPending);
  requests.on("update", enqueueIfPending);

  const downstream = createDownstreamWatch({ client, cache, logger, intents: intake });
  const policyEvents = createPolicyEvents({
    client,
    cache,
    engine,
    logger,
    intents: intake,
    isLeader: () => leading,
    resync: (key) => downstream.resync(key),
    exists: (key) => state.policyObject(key) !== undefined,
  });
  // GeneratingPolicies and mutate-existing MutatingPolicies turn existing triggers into intents alike.
  const celIntentDeps = {
    client,
    store: celPolicies,
    engine: celEngine,
    logger,
    intents: intake,
    isLeader: () => leading,
    namespaceLabels: (ns: string) => state.namespaceLabels(ns),
  };
  const celGenerating = createCelGenerating(celIntentDeps);
  const celMutating = createCelMutating(celIntentDeps);
  const celWatch = createCelPolicyWatch({
    client,
    store: celPolicies,
    logger,
    clock,
    exceptionNamespaces: options.exceptionNamespaces,
    onChange: (key) => {
      void celGenerating.changed(key);
      void celMutating.changed(key);
    },
  });
  state.subscribe((change) => {
    if (change.type !== "policy") return;
    downstream.policyChanged();
    void policyEvents.changed(change.key, change.before, change.after);
  });

  const deps = {
    client,
    cache,
    engine,
    scan,
    logger,
    namespaceLabels: (ns: string) => state.namespaceLabels(ns),
    user: options.user,
    downstreamPresence: (object: KubeObject) => downstream.presence(object),
  };
  const celDeps = {
    ...deps,
    celEngine,
    celPolicies,
    generatedKinds: celGenerating.kinds,
    monotonic: () => clock.monotonic(),
    ...(metrics ? { onEvaluated: metrics.generatingPolicyExecution } : {}),
  };
  /** One processor per request type. */
  const processByType = (ur: UpdateRequest, signal: AbortSignal): Promise<ProcessOutcome> => {
    switch (ur.spec.requestType) {
      case "cel-generate":
        return processCelGenerate(celDeps, ur, signal);
      case "cel-mutate":
        return processCelMutate(celDeps, ur, signal);
      default:
        return processUpdateRequest(deps, ur, signal);
    }
  };
  const ref = (name: string) => ({ apiVersion: UR_API_VERSION, kind: UR_KIND, namespace, name });

  /** Hands the results of a generate or mutate-existing rule to the reports, as upstream's background controller. */
  const offerResults = (ur: UpdateRequest, trigger: KubeObject, response: PolicyResponse): void => {
    const type = ur.spec.requestType;
    const phase = type === "generate" || type === "cel-generate" ? "generate" : "mutateExisting";
    // A CEL policy's response is the policy's one result; classic responses carry every rule.
    const rules = new Set(isCelRequestType(type) ? [] : rulesOf(ur).map((r) => r.rule));
    const answered = {
      ...response,
      rules: response.rules.filter((r) => rules.size === 0 || rules.has(r.name)),
    };
    const result = backgroundResultOf(trigger, answered, phase, clock.now());
    if (result !== undefined) options.results?.offer(result);
  };

  const finished = { client, namespace, logger };
  const remove = (ur: UpdateRequest) => removeUpdateRequest(finished, ur);
  const finish = (ur: UpdateRequest, outcome: Exclude<ProcessOutcome, { state: "Failed" }>) =>
    finishUpdateRequest(finished, ur, outcome);

  const reconcile = async (name: string, signal: AbortSignal): Promise<{ error: unknown } | undefined> => {
    const ur = asUpdateRequest(requests.get(namespace, name));
    if (ur === undefined) return undefined;
    const state = ur.status?.state;
    if (state === "Completed") {
      // Finished (its status written) by a previous leader that did not delete it.
      await remove(ur);
      return undefined;
    }
    // Kept as upstream keeps it, until a new request on its trigger sets it Pending again.
    if (state === "Skip") return undefined;
    if (state === undefined) {
      // As upstream: one without a state is set Pending first (the admission controller does it after
      // creating; this covers a writer that did not), and processed on the update that follows, so
      // the admission controller's own Pending write cannot land mid-processing and re-run it.
      const pending = await client.update({ ...ur, status: { state: "Pending" } } as unknown as KubeObject, {
        subresource: "status",
        signal,
      });
      if (!pending.ok && pending.status !== 404 && pending.status !== 409)
        return { error: new Error(`cannot set UpdateRequest ${name} Pending: ${pending.message}`) };
      return undefined;
    }
    const started = clock.monotonic();
    const outcome = await processByType(ur, signal);
    metrics?.processed(ur.spec.requestType, outcome.state, (clock.monotonic() - started) / 1000);
    events?.processed(ur.spec, outcome);
    if (outcome.state !== "Failed" && outcome.evaluated !== undefined)
      offerResults(ur, outcome.evaluated.trigger, outcome.evaluated.response);
    if (outcome.state !== "Failed") {
      await finish(ur, outcome);
      return undefined;
    }
    const retryCount = (ur.status?.retryCount ?? 0) + 1;
    const level = outcome.forbidden ? "error" : "warn";
    logger[level](
      {
        updateRequest: name,
        policy: ur.spec.policy,
        trigger: ur.spec.resource,
        retryCount,
        message: outcome.message,
      },
      "UpdateRequest failed",
    );
    if (retryCount > MAX_RETRIES) {
      logger.error(
        { updateRequest: name, policy: ur.spec.policy, message: outcome.message },
        "UpdateRequest given up after retries",
      );
      await client.delete(ref(name));
      return undefined;
    }
    await client.update(
      { ...ur, status: { state: "Failed", message: outcome.message, retryCount } } as unknown as KubeObject,
      {
        subresource: "status",
      },
    );
    return { error: new Error(outcome.message) };
  };

  const startLeading = (signal: AbortSignal): void => {
    leading = true;
    const q = createWorkQueue<string>({
      name: BACKGROUND_CONTROLLER_NAME,
      rateLimiter: exponentialRateLimiter<string>({ baseMs: options.retryBaseMs ?? 1000, maxMs: 60_000 }),
      maxRetries: MAX_RETRIES + 1,
      clock,
      onReconcile: (e) => metrics?.reconcile(e.controller),
      onRequeue: (e) => metrics?.requeue(e.controller, e.retries),
      onDrop: (e) => metrics?.drop(e.controller),
    });
    queue = q;
    void q.process(options.workers, (name, ctx) => reconcile(name, ctx.signal));
    // Everything not finished: new ones, and those a previous leader left (crash, handover).
    for (const o of requests.list(namespace)) {
      const ur = asUpdateRequest(o);
      if (ur !== undefined) q.add(ur.metadata.name);
    }
    void policyEvents.leaderStarted();
    void celGenerating.leaderStarted();
    void celMutating.leaderStarted();
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
      await Promise.all([state.start(), requests.start(), celWatch.start()]);
      downstream.policyChanged();
      if (options.leaderElection === false) {
        startLeading(new AbortController().signal);
        return;
      }
      const le = options.leaderElection;
      elector = createLeaderElector({
        client,
        namespace,
        name: BACKGROUND_LEASE_NAME,
        identity: le.identity,
        clock,
        ...(le.leaseDurationMs !== undefined ? { leaseDurationMs: le.leaseDurationMs } : {}),
        ...(le.renewDeadlineMs !== undefined ? { renewDeadlineMs: le.renewDeadlineMs } : {}),
        ...(le.retryPeriodMs !== undefined ? { retryPeriodMs: le.retryPeriodMs } : {}),
        onStartedLeading: startLeading,
        onStoppedLeading: stopLeading,
        onNewLeader: (leader) => logger.info({ leader }, "leader observed"),
        onError: (failure) =>
          logger.warn({ reason: failure.reason, message: failure.message }, "leader election"),
      });
      elector.start();
    },
    async stop() {
      if (elector) await elector.release();
      else await stopLeading();
      await intake.stop();
      await Promise.all([
        downstream.stop(),
        celGenerating.stop(),
        celWatch.stop(),
        state.stop(),
        requests.stop(),
      ]);
    },
    isLeader: () => leading,
    synced: () => state.synced() && requests.hasSynced() && celWatch.synced(),
  };
}
