/**
 * One reconcile of an UpdateRequest by name, as upstream: one without a state is set Pending first
 * (processed on the update that follows); a Pending one is processed by its type's processor, its
 * results handed to the reports and its outcome `Completed` or `Skip` written (see `ur-outcome.ts`);
 * a Completed one a previous leader left is deleted, a Skip one kept. A failure is recorded on the
 * status (`Failed`, message, `retryCount`) and returned so the work queue retries it; one that failed
 * more than `MAX_RETRIES` times is deleted after an error log. A Pending one whose policy kind this
 * controller has not listed yet (a CEL kind whose CRD came after start) is looked at again later, not
 * judged: its policy would be "not found" and the request skipped for good.
 */
import type { KubeObject } from "@kyverno-ts/api";
import type { PolicyResponse } from "@kyverno-ts/engine";
import type { KubeClient } from "@kyverno-ts/kube";
import type { ServerClock } from "../../clock.js";
import type { BackgroundEvents } from "../../events/background-events.js";
import type { Logger } from "../../logger.js";
import { type AdmissionResultSink, backgroundResultOf } from "../admission/results.js";
import type { BackgroundMetrics } from "./metrics.js";
import type { ProcessOutcome } from "./process.js";
import { isCelRequestType, rulesOf, type UpdateRequest, UR_API_VERSION, UR_KIND } from "./update-request.js";
import { finishUpdateRequest, removeUpdateRequest } from "./ur-outcome.js";

/** Failures after which an UpdateRequest is given up and deleted (upstream: 3). */
export const MAX_RETRIES = 3;

/** What a reconcile needs. */
export interface ReconcileDeps {
  client: KubeClient;
  /** Kyverno's namespace: UpdateRequests live there. */
  namespace: string;
  logger: Logger;
  clock: ServerClock;
  metrics?: BackgroundMetrics | undefined;
  events?: BackgroundEvents | undefined;
  results?: AdmissionResultSink | undefined;
  /** The UpdateRequest of a name, from the informer. */
  get(name: string): UpdateRequest | undefined;
  /** The processor of its request type. */
  process(ur: UpdateRequest, signal: AbortSignal): Promise<ProcessOutcome>;
  /**
   * Whether the policies of its kind are known yet (a CEL policy kind whose CRD was installed after
   * start is watched only once discovery serves it): until then a policy the admission controller
   * already saw would be "not found" and the request skipped for good. Default: always.
   */
  policyKindReady?(ur: UpdateRequest): boolean;
}

/** A failure for the work queue to retry; undefined when done. */
export type ReconcileResult = { error: unknown } | { requeueAfterMs: number } | undefined;

/** How long an UpdateRequest whose policy kind is not listed yet waits before it is looked at again (ms). */
export const POLICY_KIND_WAIT_MS = 1000;

/** Hands the results of a generate or mutate-existing rule to the reports, as upstream's background controller. */
function offerResults(deps: ReconcileDeps, ur: UpdateRequest, trigger: KubeObject, response: PolicyResponse) {
  const type = ur.spec.requestType;
  const phase = type === "generate" || type === "cel-generate" ? "generate" : "mutateExisting";
  // A CEL policy's response is the policy's one result; classic responses carry every rule.
  const rules = new Set(isCelRequestType(type) ? [] : rulesOf(ur).map((r) => r.rule));
  const answered = {
    ...response,
    rules: response.rules.filter((r) => rules.size === 0 || rules.has(r.name)),
  };
  const result = backgroundResultOf(trigger, answered, phase, deps.clock.now());
  if (result !== undefined) deps.results?.offer(result);
}

/**
 * As upstream: one without a state is set Pending first (the admission controller does it after
 * creating; this covers a writer that did not), and processed on the update that follows, so the
 * admission controller's own Pending write cannot land mid-processing and re-run it.
 */
async function setPending(
  deps: ReconcileDeps,
  ur: UpdateRequest,
  signal: AbortSignal,
): Promise<ReconcileResult> {
  const pending = await deps.client.update({ ...ur, status: { state: "Pending" } } as unknown as KubeObject, {
    subresource: "status",
    signal,
  });
  if (!pending.ok && pending.status !== 404 && pending.status !== 409)
    return { error: new Error(`cannot set UpdateRequest ${ur.metadata.name} Pending: ${pending.message}`) };
  return undefined;
}

/** Records a failed attempt on the status (or gives the UpdateRequest up after `MAX_RETRIES`). */
async function recordFailure(
  deps: ReconcileDeps,
  ur: UpdateRequest,
  outcome: Extract<ProcessOutcome, { state: "Failed" }>,
): Promise<ReconcileResult> {
  const { logger } = deps;
  const name = ur.metadata.name;
  const retryCount = (ur.status?.retryCount ?? 0) + 1;
  logger[outcome.forbidden ? "error" : "warn"](
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
    await deps.client.delete({ apiVersion: UR_API_VERSION, kind: UR_KIND, namespace: deps.namespace, name });
    return undefined;
  }
  await deps.client.update(
    { ...ur, status: { state: "Failed", message: outcome.message, retryCount } } as unknown as KubeObject,
    { subresource: "status" },
  );
  return { error: new Error(outcome.message) };
}

/** Processes a Pending UpdateRequest and records its outcome. */
async function processPending(
  deps: ReconcileDeps,
  ur: UpdateRequest,
  signal: AbortSignal,
): Promise<ReconcileResult> {
  const started = deps.clock.monotonic();
  const outcome = await deps.process(ur, signal);
  deps.metrics?.processed(ur.spec.requestType, outcome.state, (deps.clock.monotonic() - started) / 1000);
  deps.events?.processed(ur.spec, outcome);
  if (outcome.state === "Failed") return recordFailure(deps, ur, outcome);
  if (outcome.evaluated !== undefined)
    offerResults(deps, ur, outcome.evaluated.trigger, outcome.evaluated.response);
  await finishUpdateRequest(deps, ur, outcome);
  return undefined;
}

/** Reconciles the UpdateRequest `name`; see the module comment. */
export async function reconcileUpdateRequest(
  deps: ReconcileDeps,
  name: string,
  signal: AbortSignal,
): Promise<ReconcileResult> {
  const ur = deps.get(name);
  if (ur === undefined) return undefined;
  switch (ur.status?.state) {
    case "Completed":
      // Finished (its status written) by a previous leader that did not delete it.
      await removeUpdateRequest(deps, ur);
      return undefined;
    case "Skip":
      // Kept as upstream keeps it, until a new request on its trigger sets it Pending again.
      return undefined;
    case undefined:
      return setPending(deps, ur, signal);
    default:
      if (deps.policyKindReady?.(ur) === false) return { requeueAfterMs: POLICY_KIND_WAIT_MS };
      return processPending(deps, ur, signal);
  }
}
