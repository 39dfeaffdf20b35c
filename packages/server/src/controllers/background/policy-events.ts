/**
 * What a policy change asks of the background controller (leader only):
 * - `generateExisting` rules: the existing triggers they match get UpdateRequests (created, updated);
 * - `mutateExistingOnPolicyUpdate`: likewise for mutate-existing rules;
 * - a synchronized rule's policy updated: its downstream is processed again (the rule's form changed);
 * - a policy deleted: the downstream of its synchronized rules is deleted, unless
 *   `orphanDownstreamOnPolicyDelete`.
 * A new leader runs the first two for every policy, since it may have missed the events.
 */
import type { KubeObject, Rule } from "@kyverno-ts/api";
import type { Engine, RuleInfo } from "@kyverno-ts/engine";
import type { KubeClient } from "@kyverno-ts/kube";
import type { Logger } from "../../logger.js";
import type { CachedPolicy, PolicyCache } from "../../policycache/policy-cache.js";
import { deleteDownstream, GenerateLabels } from "./downstream.js";
import type { IntentSink } from "./downstream-watch.js";
import { splitKind } from "./resource-data.js";
import { downstreamKinds } from "./rule-kinds.js";
import type { RequestType } from "./update-request.js";

/** The policy reactions; see the module comment. */
export interface PolicyEvents {
  changed(key: string, before: CachedPolicy | undefined, after: CachedPolicy | undefined): Promise<void>;
  leaderStarted(): Promise<void>;
}

/** Whether a rule applies to existing triggers when its policy is created or updated. */
function existingRule(policy: CachedPolicy, info: RuleInfo): RequestType | undefined {
  const spec = policy.policy.spec;
  const rule: Rule = info.rule;
  if (info.kind === "generate" && (rule.generate?.generateExisting ?? spec.generateExisting ?? false))
    return "generate";
  if (
    info.kind === "mutateExisting" &&
    (rule.mutate?.mutateExistingOnPolicyUpdate ?? spec.mutateExistingOnPolicyUpdate ?? false)
  )
    return "mutate";
  return undefined;
}

/** Options of `createPolicyEvents`. */
export interface PolicyEventsOptions {
  client: KubeClient;
  cache: PolicyCache;
  engine: Engine;
  logger: Logger;
  intents: IntentSink;
  isLeader: () => boolean;
  /** Asks for a policy's downstream to be processed again. */
  resync?: (policyKey: string) => number;
  /** Whether a policy object still exists (a policy that failed to load is not deleted). */
  exists?: (policyKey: string) => boolean;
}

/** A rule that applies to existing triggers, with its request type. */
type ExistingRule = { info: RuleInfo; type: RequestType };

/** Intents for one existing object from the rules that pass (or error) on it; how many were added. */
function offerFor(
  deps: PolicyEventsOptions,
  policy: CachedPolicy,
  rules: readonly ExistingRule[],
  resource: KubeObject,
  k: { apiVersion: string; kind: string },
): number {
  const { engine } = deps;
  const responses = [
    [
      "generate",
      rules.some((r) => r.type === "generate")
        ? engine.generate(policy.compiled, { resource, background: true })
        : undefined,
    ],
    [
      "mutate",
      rules.some((r) => r.type === "mutate")
        ? engine.mutateExisting(policy.compiled, { resource, background: true })
        : undefined,
    ],
  ] as const;
  let offered = 0;
  for (const [type, response] of responses) {
    if (response === undefined) continue;
    const names = response.rules
      .filter(
        (r) =>
          (r.status === "pass" || r.status === "error") &&
          rules.some((x) => x.type === type && x.info.name === r.name),
      )
      .map((r) => r.name);
    if (names.length === 0) continue;
    const added = deps.intents.add({
      requestType: type,
      policy: policy.key,
      rules: names,
      deleteDownstream: false,
      trigger: {
        apiVersion: resource.apiVersion ?? k.apiVersion,
        kind: resource.kind ?? k.kind,
        namespace: resource.metadata?.namespace ?? "",
        name: resource.metadata?.name ?? "",
        uid: String(resource.metadata?.uid ?? ""),
      },
    });
    if (added) offered++;
  }
  return offered;
}

/** Existing triggers of a policy's generateExisting / mutateExistingOnPolicyUpdate rules. */
async function applyToExisting(deps: PolicyEventsOptions, policy: CachedPolicy): Promise<void> {
  const { client, logger } = deps;
  const rules = policy.compiled.rules
    .map((info) => ({ info, type: existingRule(policy, info) }))
    .filter((r): r is ExistingRule => r.type !== undefined);
  if (rules.length === 0) return;
  const kinds = new Set<string>();
  for (const { info } of rules) for (const s of info.selections) for (const k of s.kinds) kinds.add(k);
  let offered = 0;
  for (const spelling of kinds) {
    const k = splitKind(spelling);
    if (k === undefined || spelling.includes("*")) {
      logger.warn({ policy: policy.key, kind: spelling }, "existing resources of this kind cannot be listed");
      continue;
    }
    const listed = await client.list<KubeObject>({
      ...k,
      ...(policy.namespace ? { namespace: policy.namespace } : {}),
    });
    if (!listed.ok) {
      logger.error(
        { policy: policy.key, kind: spelling, message: listed.message },
        "cannot list existing triggers",
      );
      continue;
    }
    for (const resource of listed.value.items) offered += offerFor(deps, policy, rules, resource, k);
  }
  logger.info({ policy: policy.key, updateRequests: offered }, "policy applied to existing resources");
}

/** Deletes the downstream of a deleted policy's synchronized rules (orphaning where asked). */
async function deletePolicyDownstream(deps: PolicyEventsOptions, policy: CachedPolicy): Promise<void> {
  const { logger } = deps;
  for (const info of policy.compiled.rules) {
    const g = info.rule.generate;
    if (info.kind !== "generate" || !g?.synchronize || g.orphanDownstreamOnPolicyDelete) continue;
    const selector = [
      `${GenerateLabels.policyName}=${policy.policy.metadata.name}`,
      `${GenerateLabels.ruleName}=${info.name}`,
    ].join(",");
    // The policy's own downstream only: a ClusterPolicy and Policies in any namespace may share a name.
    const namespace = policy.namespace ?? "";
    const gone = await deleteDownstream(
      deps.client,
      downstreamKinds(info.rule),
      selector,
      new AbortController().signal,
      (o) => (o.metadata?.labels?.[GenerateLabels.policyNamespace] ?? "") === namespace,
    );
    if (gone.ok)
      logger.info(
        { policy: policy.key, rule: info.name, deleted: gone.deleted },
        "downstream of a deleted policy deleted",
      );
    else
      logger.error(
        { policy: policy.key, object: gone.object, message: gone.failure.message },
        "cannot delete the downstream of a deleted policy",
      );
  }
}

/** Creates the reactions. */
export function createPolicyEvents(options: PolicyEventsOptions): PolicyEvents {
  const { logger } = options;
  return {
    async changed(key, before, after) {
      if (!options.isLeader()) return;
      try {
        if (after === undefined) {
          if (before !== undefined && !(options.exists?.(key) ?? false))
            await deletePolicyDownstream(options, before);
          return;
        }
        await applyToExisting(options, after);
        if (before !== undefined) options.resync?.(key);
      } catch (error) {
        logger.error({ policy: key, err: error }, "cannot apply a policy change");
      }
    },
    async leaderStarted() {
      for (const policy of options.cache.policies()) {
        if (!options.isLeader()) return;
        await applyToExisting(options, policy).catch((error: unknown) =>
          logger.error({ policy: policy.key, err: error }, "cannot apply a policy to existing resources"),
        );
      }
    },
  };
}
