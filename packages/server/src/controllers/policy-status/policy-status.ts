/**
 * Policy status, written back by the leader as upstream does: `status.ready`, the `Ready` condition,
 * `status.autogen.rules` and `status.rulecount`. A loadable policy is reported Ready only once the
 * webhook configurations computed from it have been written, so `kubectl wait --for=condition=Ready`
 * means the policy is enforced.
 */
import type { JsonObject, JsonValue, KubeObject, Rule } from "@kyverno-ts/api";
import { type CompiledPolicy, type RuleKind, ruleKindOf } from "@kyverno-ts/engine";
import type { KubeClient } from "@kyverno-ts/kube";
import type { ServerClock } from "../../clock.js";
import type { ClusterState } from "../../cluster-state/cluster-state.js";
import type { Logger } from "../../logger.js";
import { type CelPolicyStore, isCelPolicyKey } from "../../policycache/cel-policy-store.js";
import type { PolicyCache } from "../../policycache/policy-cache.js";
import { upstreamAutogenRule } from "./autogen-status.js";
import { comparableCelStatus, desiredCelStatus } from "./cel-status.js";
import type { Readiness } from "./readiness.js";

/** `rulecount` of a set of rules (the engine's kind of each). */
export function ruleCount(kinds: readonly RuleKind[]): {
  validate: number;
  generate: number;
  mutate: number;
  verifyimages: number;
} {
  const count = (...of: RuleKind[]) => kinds.filter((k) => of.includes(k)).length;
  return {
    validate: count("validate"),
    generate: count("generate"),
    mutate: count("mutate", "mutateExisting"),
    verifyimages: count("verifyImages"),
  };
}

/**
 * The status to write: readiness as a `Ready` condition (its `lastTransitionTime` kept while the
 * condition does not change), the autogen rules and the rule counts (autogen included, as upstream).
 */
export function desiredStatus(input: {
  object: KubeObject;
  readiness: Readiness;
  compiled: CompiledPolicy | undefined;
  now: Date;
}): JsonObject {
  const { object, readiness } = input;
  const previous = (object.status as { conditions?: unknown } | undefined)?.conditions;
  const old = Array.isArray(previous)
    ? (previous as Array<Record<string, unknown>>).find((c) => c?.type === "Ready")
    : undefined;
  const status = readiness.ready ? "True" : "False";
  const unchanged = old?.status === status && old?.reason === readiness.reason;
  const condition: JsonObject = {
    type: "Ready",
    status,
    reason: readiness.reason,
    message: readiness.message,
    lastTransitionTime:
      unchanged && typeof old?.lastTransitionTime === "string"
        ? old.lastTransitionTime
        : input.now.toISOString(),
  };
  const generation = object.metadata?.generation;
  if (typeof generation === "number") condition.observedGeneration = generation;
  // The compiled policy's rules (autogen included, as upstream counts them), else the written ones.
  const rules = input.compiled?.rules;
  const spec = (object.spec as { rules?: Rule[] } | undefined)?.rules ?? [];
  const autogen = (rules ?? [])
    .filter((r) => r.autogenOf !== undefined)
    .map((r) => upstreamAutogenRule(r.rule as unknown as JsonObject) as JsonValue);
  // As upstream serializes its status: `autogen: {}` without rules, and the (not generated)
  // ValidatingAdmissionPolicy status always present.
  return {
    ready: readiness.ready,
    conditions: [condition],
    autogen: autogen.length > 0 ? { rules: autogen } : {},
    rulecount: ruleCount(rules ? rules.map((r) => r.kind) : spec.map(ruleKindOf)),
    validatingadmissionpolicy: { generated: false, message: "" },
  };
}

function comparable(status: unknown): string {
  const s = (status ?? {}) as {
    ready?: unknown;
    conditions?: unknown;
    autogen?: unknown;
    rulecount?: unknown;
    validatingadmissionpolicy?: unknown;
  };
  const conditions = Array.isArray(s.conditions)
    ? (s.conditions as Array<Record<string, unknown>>).map(({ lastTransitionTime: _, ...rest }) => rest)
    : [];
  return JSON.stringify([
    s.ready ?? null,
    conditions,
    s.autogen ?? null,
    s.rulecount ?? null,
    s.validatingadmissionpolicy ?? null,
  ]);
}

/** The status as a merge patch: `autogen.rules: null` removes the rules when none are generated. */
function withRemovals(desired: JsonObject): JsonObject {
  const autogen = desired.autogen as JsonObject | undefined;
  return autogen !== undefined && autogen.rules === undefined
    ? { ...desired, autogen: { rules: null } }
    : desired;
}

/** Options of `createStatusWriter`. */
export interface StatusWriterOptions {
  client: KubeClient;
  cache: PolicyCache;
  /** The CEL policies (`celPolicyKey` keys), whose status is `conditionStatus` (see cel-status.ts). */
  celPolicies?: CelPolicyStore;
  state: Pick<ClusterState, "policyObject" | "loadFailure" | "policyRevision">;
  /** The source revision the written webhook configurations were computed from (-1: none yet). */
  appliedRevision: () => number;
  clock: Pick<ServerClock, "now">;
  logger: Logger;
}

/** Writes the status of one policy; see `createStatusWriter`. */
export interface StatusWriter {
  /** Writes the policy's status when it differs; resolves `false` when it must wait for the webhooks. */
  reconcile(key: string, signal: AbortSignal): Promise<boolean>;
}

/** Creates the writer (leader only). */
export function createStatusWriter(options: StatusWriterOptions): StatusWriter {
  const { client, cache, state, logger } = options;

  const readiness = (key: string): Readiness | undefined => {
    const failure = state.loadFailure(key);
    if (failure !== undefined) return { ready: false, reason: "Failed", message: failure };
    const status = isCelPolicyKey(key) ? options.celPolicies?.status(key) : cache.status(key);
    if (status === undefined) return undefined;
    if (!status.ready) return { ready: false, reason: "Failed", message: status.message };
    const revision = state.policyRevision(key);
    if (revision === undefined || revision > options.appliedRevision()) return undefined;
    return { ready: true, reason: "Succeeded", message: "Ready" };
  };

  return {
    async reconcile(key, signal) {
      const object = state.policyObject(key);
      if (object === undefined) return true;
      const ready = readiness(key);
      if (ready === undefined) return false;
      const cel = isCelPolicyKey(key);
      const now = new Date(options.clock.now());
      const desired = cel
        ? desiredCelStatus({ object, readiness: ready, now })
        : desiredStatus({ object, readiness: ready, compiled: cache.get(key)?.compiled, now });
      const same = cel ? comparableCelStatus : comparable;
      if (same(object.status) === same(desired)) return true;
      const namespaced = object.kind === "Policy" || (cel && object.metadata?.namespace !== undefined);
      const ref = {
        apiVersion: object.apiVersion ?? "kyverno.io/v1",
        kind: object.kind ?? "ClusterPolicy",
        name: object.metadata?.name ?? "",
        ...(namespaced ? { namespace: object.metadata?.namespace ?? "default" } : {}),
      };
      const patched = await client.patch(
        ref,
        // A merge patch keeps what it does not name: rules no longer generated are deleted with null.
        { type: "merge", patch: { status: cel ? desired : withRemovals(desired) } },
        { subresource: "status", signal },
      );
      if (!patched.ok) {
        if (patched.status === 404) return true;
        throw new Error(`writing the status of ${key}: ${patched.message}`);
      }
      logger.debug({ policy: key, ready: ready.ready }, "policy status written");
      return true;
    },
  };
}
