/**
 * Processing one UpdateRequest: the trigger is read afresh, the engine computes what the policy's
 * rules want (generate: the downstream objects; mutate: the targets' patched forms), and this module
 * writes it. The outcome is one of upstream's states: `Completed`, `Skip` (nothing to do: the trigger
 * or the policy is gone, the rule no longer applies) or `Failed` (retried with backoff).
 */
import type { KubeObject } from "@kyverno-ts/api";
import type { Engine, EngineRequest, PolicyResponse, RuleResponse } from "@kyverno-ts/engine";
import { isConflict, type KubeClient } from "@kyverno-ts/kube";
import type { ScanContext } from "../../external-data/scan-context.js";
import type { Logger } from "../../logger.js";
import type { CachedPolicy, PolicyCache } from "../../policycache/policy-cache.js";
import {
  applyDownstream,
  type DownstreamFailure,
  type DownstreamPresence,
  deleteDownstream,
  describeObject,
  desiredObject,
  downstreamLabels,
  GenerateLabels,
} from "./downstream.js";
import { createResourceData, type ResourceData } from "./resource-data.js";
import { downstreamKinds } from "./rule-kinds.js";
import { type RuleContext, rulesOf, type TriggerRef, type UpdateRequest } from "./update-request.js";

/** What processing decided. */
export type ProcessOutcome =
  | {
      state: "Completed";
      message: string;
      generated: KubeObject[];
      /** The engine's response for the trigger as read (for reports), when the rules were evaluated. */
      evaluated?: { trigger: KubeObject; response: PolicyResponse };
    }
  | {
      state: "Skip";
      message: string;
      /** The response of a policy a PolicyException skipped (its `skip` row is reported, as upstream's). */
      evaluated?: { trigger: KubeObject; response: PolicyResponse };
    }
  | { state: "Failed"; message: string; forbidden: boolean };

/** What the processor needs. */
export interface ProcessorDeps {
  client: KubeClient;
  cache: PolicyCache;
  engine: Engine;
  /** Context entries (configMap, apiCall, globalReference) of the rules. */
  scan: ScanContext;
  logger: Logger;
  namespaceLabels: (namespace: string) => Record<string, string> | undefined;
  /** The controller's user, for permission messages (`system:serviceaccount:kyverno:kyverno-background-controller`). */
  user: string;
  /** Whether a generated object exists, as the downstream informers know (none: `unknown`, read first). */
  downstreamPresence?: (object: KubeObject) => DownstreamPresence;
}

/** Attempts at a mutate-existing write that keeps meeting a newer version of its target. */
const CONFLICT_ATTEMPTS = 5;

export function failed(f: DownstreamFailure, user: string, verb: string): ProcessOutcome {
  if (f.failure.reason === "Forbidden")
    return {
      state: "Failed",
      forbidden: true,
      message: `${user} does not have permissions to '${verb}' ${f.object}: ${f.failure.message}. Grant proper permissions to the background controller`,
    };
  return { state: "Failed", forbidden: false, message: `${f.object}: ${f.failure.message}` };
}

/**
 * A trigger that cannot be read: the admission controller creates UpdateRequests while the API server
 * may not have stored the object it admitted yet, so a CREATE's trigger is looked for again (retried
 * with backoff) before the UpdateRequest is skipped.
 */
export function triggerMissing(ur: UpdateRequest): ProcessOutcome {
  const created = ur.spec.context?.admissionRequestInfo?.operation === "CREATE";
  if (created && (ur.status?.retryCount ?? 0) < 2)
    return { state: "Failed", forbidden: false, message: "the trigger resource is not stored yet" };
  return { state: "Skip", message: "the trigger resource no longer exists" };
}

/** Selector of a rule's downstream for one trigger. */
function downstreamSelector(policy: string, rule: string, triggerUid: string): string {
  const name = policy.includes("/") ? policy.slice(policy.indexOf("/") + 1) : policy;
  return [
    `${GenerateLabels.policyName}=${name}`,
    `${GenerateLabels.ruleName}=${rule}`,
    ...(triggerUid ? [`${GenerateLabels.triggerUid}=${triggerUid}`] : []),
  ].join(",");
}

/** The trigger as it is now; undefined when it is gone. */
export async function readTrigger(
  client: KubeClient,
  t: TriggerRef,
  signal: AbortSignal,
): Promise<{ ok: true; object: KubeObject | undefined } | DownstreamFailure> {
  const ref = {
    apiVersion: t.apiVersion,
    kind: t.kind,
    name: t.name,
    ...(t.namespace ? { namespace: t.namespace } : {}),
  };
  const got = await client.get(ref, { signal });
  if (got.ok) return { ok: true, object: got.value };
  if (got.status === 404) return { ok: true, object: undefined };
  return { ok: false, object: `${t.kind} ${t.namespace}/${t.name}`, failure: got };
}

export function engineRequest(deps: ProcessorDeps, ur: UpdateRequest, trigger: KubeObject): EngineRequest {
  const ctx = ur.spec.context ?? {};
  const operation = ctx.admissionRequestInfo?.operation;
  const labels = trigger.metadata?.namespace ? deps.namespaceLabels(trigger.metadata.namespace) : undefined;
  return {
    resource: trigger,
    operation: operation === "UPDATE" ? "UPDATE" : "CREATE",
    ...(ctx.userInfo?.userInfo ? { userInfo: ctx.userInfo.userInfo } : {}),
    roles: ctx.userInfo?.roles ?? [],
    clusterRoles: ctx.userInfo?.clusterRoles ?? [],
    ...(labels ? { namespaceLabels: labels } : {}),
  };
}

/** Deletes what the UR's rules generated for its trigger (trigger deleted or no longer matching). */
async function removeDownstream(
  deps: ProcessorDeps,
  policy: CachedPolicy,
  rules: readonly RuleContext[],
  signal: AbortSignal,
): Promise<ProcessOutcome> {
  let deleted = 0;
  for (const rc of rules) {
    const rule = policy.compiled.rules.find((r) => r.name === rc.rule)?.rule;
    if (rule === undefined) continue;
    const gone = await deleteDownstream(
      deps.client,
      downstreamKinds(rule),
      downstreamSelector(policy.key, rc.rule, rc.trigger.uid),
      signal,
    );
    if (!gone.ok) return failed(gone, deps.user, "delete");
    deleted += gone.deleted;
  }
  return { state: "Completed", message: `deleted ${deleted} downstream resource(s)`, generated: [] };
}

async function processGenerate(
  deps: ProcessorDeps,
  ur: UpdateRequest,
  policy: CachedPolicy,
  signal: AbortSignal,
): Promise<ProcessOutcome> {
  const contexts = rulesOf(ur);
  const deletions = contexts.filter((c) => c.deleteDownstream);
  if (deletions.length > 0) {
    const removed = await removeDownstream(deps, policy, deletions, signal);
    if (removed.state !== "Completed" || deletions.length === contexts.length) return removed;
  }
  const wanted = contexts.filter((c) => !c.deleteDownstream);
  const read = await readTrigger(deps.client, ur.spec.resource, signal);
  if (!read.ok) return failed(read, deps.user, "get");
  const trigger = read.object;
  if (trigger === undefined) return triggerMissing(ur);
  const data = createResourceData({ client: deps.client, scan: deps.scan });
  const request = {
    ...engineRequest(deps, ur, trigger),
    contextLoader: data.loader,
    exceptions: deps.cache.exceptionsFor(policy),
  };
  const response: PolicyResponse = await data.evaluate(
    () => deps.engine.generate(policy.compiled, request),
    signal,
  );
  const generated: KubeObject[] = [];
  const triggerName = String(trigger.metadata?.name ?? "");
  for (const rc of wanted) {
    const rule = response.rules.find((r) => r.name === rc.rule);
    const synchronize = rule?.synchronize ?? false;
    if (rule === undefined || rule.status === "skip") {
      // A synchronized rule that no longer applies to its trigger takes its downstream along.
      const info = policy.compiled.rules.find((r) => r.name === rc.rule);
      if (info?.rule.generate?.synchronize) {
        const removed = await removeDownstream(
          deps,
          policy,
          [{ ...rc, trigger: { ...rc.trigger, uid: String(trigger.metadata?.uid ?? rc.trigger.uid) } }],
          signal,
        );
        if (removed.state === "Failed") return removed;
      }
      continue;
    }
    if (rule.status !== "pass")
      return { state: "Failed", forbidden: false, message: `rule ${rc.rule}: ${rule.message}` };
    for (const g of rule.generated ?? []) {
      const desired = desiredObject(g, downstreamLabels(g, triggerName));
      if (policy.namespace !== undefined && desired.metadata?.namespace !== policy.namespace)
        return {
          state: "Failed",
          forbidden: false,
          message: `rule ${rc.rule}: a namespaced Policy generates only in its namespace ${policy.namespace}, not ${describeObject(desired)}`,
        };
      const presence = deps.downstreamPresence?.(desired) ?? "unknown";
      const applied = await applyDownstream(deps.client, desired, synchronize, signal, presence);
      if (!applied.ok) return failed(applied, deps.user, "create");
      generated.push(desired);
    }
  }
  return {
    state: "Completed",
    message: `${generated.length} resource(s) generated`,
    generated,
    evaluated: { trigger, response },
  };
}

/** The engine's mutate-existing response for the trigger as read now (reads through `data`). */
export type TargetEvaluation = (
  trigger: KubeObject,
  data: ResourceData,
  signal: AbortSignal,
) => Promise<PolicyResponse>;

/**
 * The mutate-existing work of any policy kind: the trigger is read afresh, `evaluate` computes the
 * targets' patched forms, and each is written with the target's resourceVersion. A target changed
 * meanwhile (409) has the whole evaluation done again, up to `CONFLICT_ATTEMPTS` times. Only the rules
 * `wanted` selects are written; an `error` among them fails the UpdateRequest (retried).
 */
export async function mutateTargets(
  deps: ProcessorDeps,
  ur: UpdateRequest,
  evaluate: TargetEvaluation,
  wanted: (rule: RuleResponse) => boolean,
  signal: AbortSignal,
): Promise<ProcessOutcome> {
  for (let attempt = 1; ; attempt++) {
    const read = await readTrigger(deps.client, ur.spec.resource, signal);
    if (!read.ok) return failed(read, deps.user, "get");
    const trigger = read.object;
    if (trigger === undefined) return triggerMissing(ur);
    const data = createResourceData({ client: deps.client, scan: deps.scan });
    const evaluated = await evaluate(trigger, data, signal);
    const response = { ...evaluated, rules: evaluated.rules.filter(wanted) };
    const patched: KubeObject[] = [];
    let conflict = false;
    for (const rule of response.rules) {
      const label = rule.name === "" ? response.policy.name : `rule ${rule.name}`;
      if (rule.status === "error")
        return { state: "Failed", forbidden: false, message: `${label}: ${rule.message}` };
      for (const t of rule.patchedTargets ?? []) {
        // The patched form carries the target's resourceVersion: a newer target is a 409, evaluated again.
        const written = await deps.client.update(t.patched as unknown as KubeObject, { signal });
        if (written.ok) patched.push(t.target);
        else if (isConflict(written)) conflict = true;
        else
          return failed(
            { ok: false, object: describeObject(t.target), failure: written },
            deps.user,
            "update",
          );
      }
    }
    // `generated`: what the rules wrote (here the mutated targets, for the success Events).
    if (!conflict)
      return {
        state: "Completed",
        message: `${patched.length} target(s) mutated`,
        generated: patched,
        evaluated: { trigger, response },
      };
    if (attempt >= CONFLICT_ATTEMPTS)
      return {
        state: "Failed",
        forbidden: false,
        message: `the targets kept changing: ${CONFLICT_ATTEMPTS} attempts met a conflict`,
      };
  }
}

/** A classic mutate-existing UpdateRequest: the policy's rules the UpdateRequest names. */
function processMutate(
  deps: ProcessorDeps,
  ur: UpdateRequest,
  policy: CachedPolicy,
  signal: AbortSignal,
): Promise<ProcessOutcome> {
  const wanted = new Set(rulesOf(ur).map((c) => c.rule));
  const evaluate: TargetEvaluation = (trigger, data, s) =>
    data.evaluate(
      () =>
        deps.engine.mutateExisting(policy.compiled, {
          ...engineRequest(deps, ur, trigger),
          contextLoader: data.loader,
          exceptions: deps.cache.exceptionsFor(policy),
        }),
      s,
    );
  return mutateTargets(deps, ur, evaluate, (rule) => wanted.has(rule.name), signal);
}

/** Processes one UpdateRequest (never throws for API failures: they are a `Failed` outcome). */
export async function processUpdateRequest(
  deps: ProcessorDeps,
  ur: UpdateRequest,
  signal: AbortSignal,
): Promise<ProcessOutcome> {
  const policy = deps.cache.get(ur.spec.policy);
  if (policy === undefined) return { state: "Skip", message: `policy ${ur.spec.policy} not found` };
  return ur.spec.requestType === "generate"
    ? processGenerate(deps, ur, policy, signal)
    : processMutate(deps, ur, policy, signal);
}
