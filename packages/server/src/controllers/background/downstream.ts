/**
 * Writing what generate rules want (the "downstream"): create what is missing; with `synchronize`,
 * bring a drifted downstream back to the rule's form; delete the downstream of a trigger or a policy.
 * Generated objects carry upstream's `generate.kyverno.io/*` labels, which is how they are found again.
 */
import type { JsonValue, KubeObject } from "@kyverno-ts/api";
import type { GeneratedResource } from "@kyverno-ts/engine";
import type { ApiFailure, KubeClient } from "@kyverno-ts/kube";

/** Label keys upstream puts on generated resources. */
export const GenerateLabels = {
  managedBy: "app.kubernetes.io/managed-by",
  policyName: "generate.kyverno.io/policy-name",
  policyNamespace: "generate.kyverno.io/policy-namespace",
  ruleName: "generate.kyverno.io/rule-name",
  triggerName: "generate.kyverno.io/trigger-name",
  triggerUid: "generate.kyverno.io/trigger-uid",
  triggerNamespace: "generate.kyverno.io/trigger-namespace",
  triggerKind: "generate.kyverno.io/trigger-kind",
  triggerGroup: "generate.kyverno.io/trigger-group",
  triggerVersion: "generate.kyverno.io/trigger-version",
  sourceName: "generate.kyverno.io/source-name",
  sourceNamespace: "generate.kyverno.io/source-namespace",
  sourceKind: "generate.kyverno.io/source-kind",
  sourceGroup: "generate.kyverno.io/source-group",
  sourceVersion: "generate.kyverno.io/source-version",
} as const;

/** The engine's `clone-source` (`namespace/name`) is no label value: upstream's source-* labels instead. */
const CLONE_SOURCE = "generate.kyverno.io/clone-source";

/** What happened to one generated object. */
export type DownstreamOutcome = "created" | "updated" | "unchanged" | "skipped";

/** A write that failed, with the API's reason (`Forbidden` is a permission the controller lacks). */
export interface DownstreamFailure {
  ok: false;
  object: string;
  failure: ApiFailure;
}

/** A label value as Kubernetes accepts it, or undefined when it cannot be one. */
function labelValue(value: string): string | undefined {
  return value.length <= 63 && /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/.test(value)
    ? value
    : undefined;
}

/** The labels of a generated object: the engine's, with the trigger's name and the clone source split. */
export function downstreamLabels(generated: GeneratedResource, triggerName: string): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const [k, v] of Object.entries(generated.labels)) if (k !== CLONE_SOURCE) labels[k] = v;
  const name = labelValue(triggerName);
  if (name !== undefined) labels[GenerateLabels.triggerName] = name;
  const source = generated.labels[CLONE_SOURCE];
  if (source !== undefined) {
    const [namespace = "", sourceName = ""] = source.split("/");
    const apiVersion = generated.object.apiVersion ?? "";
    const [group, version] = apiVersion.includes("/") ? apiVersion.split("/") : ["", apiVersion];
    labels[GenerateLabels.sourceNamespace] = namespace;
    const n = labelValue(sourceName);
    if (n !== undefined) labels[GenerateLabels.sourceName] = n;
    labels[GenerateLabels.sourceKind] = generated.object.kind ?? "";
    labels[GenerateLabels.sourceGroup] = group ?? "";
    labels[GenerateLabels.sourceVersion] = version ?? "";
  }
  return labels;
}

/** `Kind namespace/name` of an object, for messages. */
export function describeObject(o: KubeObject): string {
  const ns = o.metadata?.namespace;
  return `${o.kind} ${ns ? `${ns}/` : ""}${o.metadata?.name ?? ""}`;
}

/** Whether `want` is contained in `have` (objects key by key, everything else equal). */
function contains(have: JsonValue | undefined, want: JsonValue | undefined): boolean {
  if (want === null || typeof want !== "object") return have === want;
  // An empty object is what an absent one means (no labels, no annotations).
  if (!Array.isArray(want) && Object.keys(want).length === 0 && have === undefined) return true;
  if (have === null || typeof have !== "object") return false;
  if (Array.isArray(want)) {
    if (!Array.isArray(have) || have.length !== want.length) return false;
    return want.every((w, i) => contains(have[i], w));
  }
  if (Array.isArray(have)) return false;
  return Object.entries(want).every(([k, w]) => contains(have[k], w));
}

/** Top-level maps compared exactly: a key someone added to a synchronized Secret is removed. */
const EXACT = new Set(["data", "binaryData", "stringData"]);

/** Whether an existing object still has the rule's form (server defaults aside). */
export function inSync(existing: KubeObject, desired: KubeObject): boolean {
  for (const [k, v] of Object.entries(desired)) {
    if (k === "metadata" || k === "status") continue;
    const have = existing[k] as JsonValue | undefined;
    if (
      EXACT.has(k) ? JSON.stringify(have ?? {}) !== JSON.stringify(v ?? {}) : !contains(have, v as JsonValue)
    )
      return false;
  }
  for (const k of EXACT) if (!(k in desired) && existing[k] !== undefined && k !== "stringData") return false;
  const meta = desired.metadata ?? {};
  return (
    contains(existing.metadata?.labels as JsonValue, meta.labels as JsonValue) &&
    contains(existing.metadata?.annotations as JsonValue, (meta.annotations ?? {}) as JsonValue)
  );
}

/** The desired object with its labels. */
export function desiredObject(generated: GeneratedResource, labels: Record<string, string>): KubeObject {
  const o = generated.object;
  return {
    ...o,
    metadata: { ...o.metadata, labels: { ...(o.metadata?.labels ?? {}), ...labels } },
  } as KubeObject;
}

/** What the caller knows of a generated object before writing it (the downstream informer's view). */
export type DownstreamPresence = "present" | "absent" | "unknown";

/**
 * Makes one generated object exist: created when missing; when it exists, brought back to the rule's
 * form if `synchronize` (never touching an object Kyverno did not generate for this policy). The
 * object is read first, as upstream, unless it is likely missing — a rule that does not synchronize
 * (an existing object is left as it is, so `AlreadyExists` answers as much as a read) or a
 * synchronized one the downstream informer does not have: then it is created at once and read only
 * when it turns out to exist. Same outcome either way; one call instead of two for a new object.
 */
export async function applyDownstream(
  client: KubeClient,
  desired: KubeObject,
  synchronize: boolean,
  signal: AbortSignal,
  presence: DownstreamPresence = "unknown",
): Promise<{ ok: true; outcome: DownstreamOutcome } | DownstreamFailure> {
  const object = describeObject(desired);
  const create = async () => {
    const created = await client.create(desired, { signal });
    if (created.ok) return { ok: true as const, outcome: "created" as const };
    return created.reason === "AlreadyExists" ? undefined : { ok: false as const, object, failure: created };
  };
  if (!synchronize || presence === "absent") {
    const created = await create();
    // A controller without `create` may still find the object there (as upstream's read would): read.
    const forbidden = created?.ok === false && created.failure.reason === "Forbidden";
    // Exists (another worker, a restart mid-way, someone else's object): compared below when synchronized.
    if (!forbidden && (created !== undefined || !synchronize))
      return created ?? { ok: true, outcome: "unchanged" };
  }
  const ref = {
    apiVersion: desired.apiVersion ?? "",
    kind: desired.kind ?? "",
    name: desired.metadata?.name ?? "",
    ...(desired.metadata?.namespace ? { namespace: desired.metadata.namespace } : {}),
  };
  const got = await client.get(ref, { signal });
  if (!got.ok) {
    if (got.status !== 404) return { ok: false, object, failure: got };
    // Deleted meanwhile, or missing after all: created; one created meanwhile is compared on the next run.
    return (await create()) ?? { ok: true, outcome: "unchanged" };
  }
  return syncExisting(client, got.value, desired, synchronize, object, signal);
}

/** A generated object that exists: brought back to the rule's form when synchronized and ours. */
async function syncExisting(
  client: KubeClient,
  existing: KubeObject,
  desired: KubeObject,
  synchronize: boolean,
  object: string,
  signal: AbortSignal,
): Promise<{ ok: true; outcome: DownstreamOutcome } | DownstreamFailure> {
  const labels = existing.metadata?.labels ?? {};
  const ours =
    labels[GenerateLabels.policyName] === desired.metadata?.labels?.[GenerateLabels.policyName] &&
    labels[GenerateLabels.ruleName] === desired.metadata?.labels?.[GenerateLabels.ruleName];
  if (!synchronize || !ours) return { ok: true, outcome: synchronize ? "skipped" : "unchanged" };
  if (inSync(existing, desired)) return { ok: true, outcome: "unchanged" };
  const { metadata: _m, status: _s, ...content } = desired;
  const keep = Object.fromEntries(
    Object.entries(existing).filter(([k]) => k === "status" || (!EXACT.has(k) && !(k in content))),
  );
  const updated = await client.update(
    {
      ...keep,
      ...content,
      metadata: {
        ...existing.metadata,
        labels: { ...labels, ...(desired.metadata?.labels ?? {}) },
        ...(desired.metadata?.annotations
          ? { annotations: { ...(existing.metadata?.annotations ?? {}), ...desired.metadata.annotations } }
          : {}),
      },
    } as KubeObject,
    { signal },
  );
  if (updated.ok) return { ok: true, outcome: "updated" };
  return { ok: false, object, failure: updated };
}

/**
 * Deletes the objects of `kinds` selected by `selector` (generate labels) and, when given, `keep`
 * (what a selector cannot say); answers how many went.
 */
export async function deleteDownstream(
  client: KubeClient,
  kinds: ReadonlyArray<{ apiVersion: string; kind: string }>,
  selector: string,
  signal: AbortSignal,
  keep: (object: KubeObject) => boolean = () => true,
): Promise<{ ok: true; deleted: number } | DownstreamFailure> {
  let deleted = 0;
  for (const k of kinds) {
    const listed = await client.list({ ...k, labelSelector: selector, signal });
    if (!listed.ok) {
      if (listed.status === 404) continue;
      return { ok: false, object: `${k.kind} (${selector})`, failure: listed };
    }
    for (const item of listed.value.items) {
      if (!keep(item)) continue;
      const ref = {
        apiVersion: k.apiVersion,
        kind: k.kind,
        name: item.metadata?.name ?? "",
        ...(item.metadata?.namespace ? { namespace: item.metadata.namespace } : {}),
      };
      const gone = await client.delete(ref, { signal });
      if (gone.ok || gone.status === 404) deleted++;
      else return { ok: false, object: describeObject(item), failure: gone };
    }
  }
  return { ok: true, deleted };
}
