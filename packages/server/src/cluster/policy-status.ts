/**
 * Policy status, written back by the leader as upstream does: `status.ready`, the `Ready` condition,
 * `status.autogen.rules` and `status.rulecount`. A loadable policy is reported Ready only once the
 * webhook configurations computed from it have been written, so `kubectl wait --for=condition=Ready`
 * means the policy is enforced.
 */
import type { JsonObject, JsonValue, KubeObject, Rule } from "@kyverno-ts/api";
import type { CompiledPolicy } from "@kyverno-ts/engine";
import type { KubeClient } from "@kyverno-ts/kube";
import type { Logger } from "../logger.js";
import type { PolicyCache } from "../policycache/policy-cache.js";
import type { PolicySources } from "./sources.js";

/** The readiness a status reports. */
export interface Readiness {
  ready: boolean;
  reason: "Succeeded" | "Failed";
  message: string;
}

/** Rules of a compiled policy, autogen included, read from the engine's compiled form when exposed. */
function compiledRules(
  compiled: CompiledPolicy | undefined,
): Array<{ rule: Rule; autogen: boolean }> | undefined {
  const rules = (compiled as unknown as { rules?: unknown } | undefined)?.rules;
  if (!Array.isArray(rules)) return undefined;
  const out: Array<{ rule: Rule; autogen: boolean }> = [];
  for (const r of rules as unknown[]) {
    const entry = r as { rule?: unknown; autogen?: unknown } | null;
    if (entry && typeof entry.rule === "object" && entry.rule !== null)
      out.push({ rule: entry.rule as Rule, autogen: entry.autogen === true });
  }
  return out;
}

/** `rulecount` of a set of rules. */
export function ruleCount(rules: readonly Rule[]): {
  validate: number;
  generate: number;
  mutate: number;
  verifyimages: number;
} {
  return {
    validate: rules.filter((r) => r.validate !== undefined).length,
    generate: rules.filter((r) => r.generate !== undefined).length,
    mutate: rules.filter((r) => r.mutate !== undefined).length,
    verifyimages: rules.filter((r) => (r.verifyImages ?? []).length > 0).length,
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
  const rules = compiledRules(input.compiled);
  const spec = (object.spec as { rules?: Rule[] } | undefined)?.rules ?? [];
  const autogen = (rules ?? []).filter((r) => r.autogen).map((r) => r.rule as unknown as JsonValue);
  return {
    ready: readiness.ready,
    conditions: [condition],
    autogen: { rules: autogen },
    rulecount: ruleCount(rules ? rules.map((r) => r.rule) : spec),
  };
}

function comparable(status: unknown): string {
  const s = (status ?? {}) as {
    ready?: unknown;
    conditions?: unknown;
    autogen?: unknown;
    rulecount?: unknown;
  };
  const conditions = Array.isArray(s.conditions)
    ? (s.conditions as Array<Record<string, unknown>>).map(({ lastTransitionTime: _, ...rest }) => rest)
    : [];
  return JSON.stringify([s.ready ?? null, conditions, s.autogen ?? null, s.rulecount ?? null]);
}

/** Options of `createStatusWriter`. */
export interface StatusWriterOptions {
  client: KubeClient;
  cache: PolicyCache;
  sources: Pick<PolicySources, "policyObject" | "loadFailure" | "policyRevision">;
  /** The source revision the written webhook configurations were computed from (-1: none yet). */
  appliedRevision: () => number;
  now: () => Date;
  logger: Logger;
}

/** Writes the status of one policy; see `createStatusWriter`. */
export interface StatusWriter {
  /** Writes the policy's status when it differs; resolves `false` when it must wait for the webhooks. */
  reconcile(key: string, signal: AbortSignal): Promise<boolean>;
}

/** Creates the writer (leader only). */
export function createStatusWriter(options: StatusWriterOptions): StatusWriter {
  const { client, cache, sources, logger } = options;

  const readiness = (key: string): Readiness | undefined => {
    const failure = sources.loadFailure(key);
    if (failure !== undefined) return { ready: false, reason: "Failed", message: failure };
    const status = cache.status(key);
    if (status === undefined) return undefined;
    if (!status.ready) return { ready: false, reason: "Failed", message: status.message };
    const revision = sources.policyRevision(key);
    if (revision === undefined || revision > options.appliedRevision()) return undefined;
    return { ready: true, reason: "Succeeded", message: "Ready" };
  };

  return {
    async reconcile(key, signal) {
      const object = sources.policyObject(key);
      if (object === undefined) return true;
      const state = readiness(key);
      if (state === undefined) return false;
      const desired = desiredStatus({
        object,
        readiness: state,
        compiled: cache.get(key)?.compiled,
        now: options.now(),
      });
      if (comparable(object.status) === comparable(desired)) return true;
      const ref = {
        apiVersion: object.apiVersion ?? "kyverno.io/v1",
        kind: object.kind ?? "ClusterPolicy",
        name: object.metadata?.name ?? "",
        ...(object.kind === "Policy" ? { namespace: object.metadata?.namespace ?? "default" } : {}),
      };
      const patched = await client.patch(
        ref,
        { type: "merge", patch: { status: desired } },
        { subresource: "status", signal },
      );
      if (!patched.ok) {
        if (patched.status === 404) return true;
        throw new Error(`writing the status of ${key}: ${patched.message}`);
      }
      logger.debug({ policy: key, ready: state.ready }, "policy status written");
      return true;
    },
  };
}
