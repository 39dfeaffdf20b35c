/**
 * CleanupPolicy / ClusterCleanupPolicy (`kyverno.io/v2`, served as `v2beta1` too) as the controller
 * reads them, and the one bridge to the engine: a cleanup policy becomes a ClusterPolicy (or Policy)
 * with one validate rule holding its `match`, `exclude`, `context` and `conditions` (as
 * preconditions) and a `deny` that always fails. A resource the engine answers `fail` for is matched
 * and passes the conditions, so it is deleted; `skip` means the conditions did not pass; no result
 * means match / exclude left it out; `error` is an evaluation error. `target` (the resource, as in
 * upstream's conditions) is a context entry bound to `request.object`, declared first.
 */
import type { ContextEntry, JsonValue, KubeObject, MatchResources } from "@kyverno-ts/api";

/** The group of the cleanup policy kinds. */
export const CLEANUP_GROUP = "kyverno.io";
/** The apiVersion read and written (the CRDs' storage version). */
export const CLEANUP_API_VERSION = "kyverno.io/v2";
/** Every apiVersion the CRDs serve (the webhook is registered for each). */
export const CLEANUP_API_VERSIONS = ["v2", "v2beta1"] as const;
/** The two kinds. */
export const CLEANUP_KINDS = ["ClusterCleanupPolicy", "CleanupPolicy"] as const;
/** A cleanup policy kind. */
export type CleanupKind = (typeof CLEANUP_KINDS)[number];

/** The spec fields the controller reads. */
export interface CleanupPolicySpec {
  match?: MatchResources;
  exclude?: MatchResources;
  context?: ContextEntry[];
  conditions?: JsonValue;
  schedule?: string;
  deletionPropagationPolicy?: "Foreground" | "Background" | "Orphan";
}

/** The spec of a cleanup policy object (the API server validated it against the CRD schema). */
export function cleanupSpecOf(policy: KubeObject): CleanupPolicySpec {
  return (policy.spec ?? {}) as CleanupPolicySpec;
}

/** `status.lastExecutionTime` in epoch ms, undefined when unset or unreadable. */
export function lastExecutionOf(policy: KubeObject): number | undefined {
  const text = (policy.status as { lastExecutionTime?: unknown } | undefined)?.lastExecutionTime;
  const ms = typeof text === "string" ? Date.parse(text) : Number.NaN;
  return Number.isNaN(ms) ? undefined : ms;
}

/** True for the two cleanup policy kinds. */
export function isCleanupKind(kind: unknown): kind is CleanupKind {
  return kind === "ClusterCleanupPolicy" || kind === "CleanupPolicy";
}

/** The name of the context entry bound to the resource. */
export const TARGET_ENTRY = "target";

/** The synthetic rule's name (it shows in nothing a user reads). */
const RULE = "cleanup";

/**
 * The ClusterPolicy / Policy document a cleanup policy is evaluated as (see the module comment).
 * Fields are copied as they are, so the policy loader validates them with its own paths.
 */
export function syntheticPolicy(policy: KubeObject): JsonValue {
  const spec = (policy.spec ?? {}) as Record<string, JsonValue>;
  const namespace = policy.metadata?.namespace;
  const rule: Record<string, JsonValue> = {
    name: RULE,
    match: spec.match ?? {},
    context: [
      { name: TARGET_ENTRY, variable: { jmesPath: "request.object" } },
      ...((Array.isArray(spec.context) ? spec.context : []) as JsonValue[]),
    ],
    validate: { deny: {} },
  };
  if (spec.exclude !== undefined) rule.exclude = spec.exclude;
  if (spec.conditions !== undefined) rule.preconditions = spec.conditions;
  const isNamespaced = policy.kind === "CleanupPolicy";
  return {
    apiVersion: "kyverno.io/v1",
    kind: isNamespaced ? "Policy" : "ClusterPolicy",
    metadata: {
      name: policy.metadata?.name ?? "",
      ...(isNamespaced && namespace ? { namespace } : {}),
    },
    spec: { background: false, rules: [rule] },
  };
}

/**
 * Maps a path of the synthetic policy back to the cleanup policy's: `spec.rules[0].match…` →
 * `spec.match…`, preconditions → `spec.conditions`, context entries shifted past `target`.
 */
export function cleanupPath(path: string): string {
  const rule = "spec.rules[0]";
  if (!path.startsWith(rule)) return path;
  const rest = path.slice(rule.length);
  const context = /^\.context\[(\d+)\](.*)$/.exec(rest);
  if (context !== null) return `spec.context[${Number(context[1]) - 1}]${context[2] ?? ""}`;
  if (rest.startsWith(".preconditions")) return `spec.conditions${rest.slice(".preconditions".length)}`;
  if (rest === "" || rest.startsWith(".validate")) return "spec";
  return `spec${rest}`;
}

/** The kinds a cleanup policy lists (match `any` and `all`, `resources.kinds`), deduplicated. */
export function matchedKinds(spec: CleanupPolicySpec): string[] {
  const filters = [...(spec.match?.any ?? []), ...(spec.match?.all ?? [])];
  const legacy = (spec.match as { resources?: { kinds?: string[] } } | undefined)?.resources?.kinds ?? [];
  return [...new Set([...filters.flatMap((f) => f.resources?.kinds ?? []), ...legacy])];
}

/** `<kind>/<namespace>/<name>` or `<kind>/<name>`: the key and log name of a policy. */
export function cleanupPolicyKey(kind: string, namespace: string | undefined, name: string): string {
  return namespace ? `${kind}/${namespace}/${name}` : `${kind}/${name}`;
}
