/**
 * Processing a `cel-generate` UpdateRequest (a GeneratingPolicy or NamespacedGeneratingPolicy): the
 * trigger is read afresh, the CEL engine evaluates the policy (its `resource.Get` / `resource.List`
 * reads answered from the cluster), and the objects its `generator.Apply` calls produced are written
 * with upstream's `generate.kyverno.io/*` labels. A synchronized policy brings drifted downstream back;
 * a deleted trigger (or one the policy no longer applies to) takes a synchronized policy's downstream
 * along. A NamespacedGeneratingPolicy generates only in its own namespace.
 */
import type { KubeObject } from "@kyverno-ts/api";
import type { CelEngine } from "@kyverno-ts/engine";
import type { CachedCelPolicy, CelPolicyStore } from "../../policycache/cel-policy-store.js";
import { applyDownstream, deleteDownstream, describeObject, GenerateLabels } from "./downstream.js";
import type { GeneratingExecutionLabels } from "./metrics.js";
import {
  engineRequest,
  failed,
  type ProcessOutcome,
  type ProcessorDeps,
  readTrigger,
  triggerMissing,
} from "./process.js";
import { createResourceData } from "./resource-data.js";
import type { KindRef } from "./rule-kinds.js";
import {
  celRequestPolicyKey,
  generatingSettings,
  type TriggerRef,
  type UpdateRequest,
} from "./update-request.js";

/** A clone source kind in a namespace (a synchronized GeneratingPolicy's copies follow it). */
export interface SourceRef extends KindRef {
  namespace: string;
}

/** The kinds each GeneratingPolicy generated (learned while processing: its expressions do not say). */
export interface GeneratedKinds {
  add(policyKey: string, kind: KindRef): void;
  of(policyKey: string): KindRef[];
  forget(policyKey: string): void;
  /** A clone source a synchronized policy copied from. */
  addSource(source: SourceRef): void;
}

/**
 * Creates the registry; `onNew` hears of each kind the first time any policy generates it, `onSource`
 * of each clone source kind and namespace the first time a synchronized policy copies from it.
 */
export function createGeneratedKinds(
  onNew?: (kind: KindRef) => void,
  onSource?: (source: SourceRef) => void,
): GeneratedKinds {
  const byPolicy = new Map<string, Map<string, KindRef>>();
  const seen = new Set<string>();
  const sources = new Set<string>();
  return {
    addSource(source) {
      const id = `${source.apiVersion}/${source.kind}@${source.namespace}`;
      if (sources.has(id)) return;
      sources.add(id);
      onSource?.(source);
    },
    add(policyKey, kind) {
      const id = `${kind.apiVersion}/${kind.kind}`;
      const kinds = byPolicy.get(policyKey) ?? new Map<string, KindRef>();
      kinds.set(id, kind);
      byPolicy.set(policyKey, kinds);
      if (!seen.has(id)) {
        seen.add(id);
        onNew?.(kind);
      }
    },
    of: (policyKey) => [...(byPolicy.get(policyKey)?.values() ?? [])],
    forget: (policyKey) => void byPolicy.delete(policyKey),
  };
}

/** What processing a `cel-generate` UpdateRequest needs besides the classic processor's dependencies. */
export interface CelGenerateDeps extends ProcessorDeps {
  celEngine: CelEngine;
  celPolicies: CelPolicyStore;
  generatedKinds: GeneratedKinds;
  /** Records each evaluation (`kyverno_generating_policy_execution_duration_seconds`). */
  onEvaluated?: (labels: GeneratingExecutionLabels, seconds: number) => void;
  /** A monotonic clock in milliseconds (the evaluation's duration). */
  monotonic: () => number;
}

/** A label value as Kubernetes accepts it, or undefined when it cannot be one. */
function labelValue(value: string): string | undefined {
  return value.length <= 63 && /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/.test(value)
    ? value
    : undefined;
}

function groupVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf("/");
  return slash < 0
    ? { group: "", version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/** The labels selecting what a GeneratingPolicy generated (its policy labels, no rule name). */
export function celPolicySelector(policy: { name: string; namespace: string | undefined }): string[] {
  return [
    `${GenerateLabels.policyName}=${policy.name}`,
    policy.namespace === undefined
      ? `!${GenerateLabels.policyNamespace}`
      : `${GenerateLabels.policyNamespace}=${policy.namespace}`,
    `!${GenerateLabels.ruleName}`,
  ];
}

/** Upstream's labels of an object a GeneratingPolicy generated for a trigger. */
export function celDownstreamLabels(
  policy: { name: string; namespace: string | undefined },
  trigger: TriggerRef,
): Record<string, string> {
  const { group, version } = groupVersion(trigger.apiVersion);
  const labels: Record<string, string> = {
    [GenerateLabels.managedBy]: "kyverno",
    [GenerateLabels.policyName]: policy.name,
    [GenerateLabels.triggerKind]: trigger.kind,
    [GenerateLabels.triggerGroup]: group,
    [GenerateLabels.triggerVersion]: version,
    [GenerateLabels.triggerNamespace]: trigger.namespace,
  };
  if (policy.namespace !== undefined) labels[GenerateLabels.policyNamespace] = policy.namespace;
  const name = labelValue(trigger.name);
  if (name !== undefined) labels[GenerateLabels.triggerName] = name;
  if (trigger.uid) labels[GenerateLabels.triggerUid] = trigger.uid;
  return labels;
}

/** Annotations of a cloned object that describe the source, not the copy. */
const SOURCE_ONLY_ANNOTATIONS = new Set(["kubectl.kubernetes.io/last-applied-configuration"]);

/**
 * The object to write: what `generator.Apply` produced, without what the API server set on a clone
 * source (uid, resourceVersion, owners, status…), with the policy's labels and, for a clone (an object
 * read from the cluster), upstream's `source-*` labels.
 */
export function celDesiredObject(
  generated: KubeObject,
  labels: Record<string, string>,
  sourceNamespace?: string,
): KubeObject {
  const { metadata = {}, status: _status, ...content } = generated;
  const cloned = typeof metadata.uid === "string" && metadata.uid !== "";
  const out: Record<string, string> = { ...(metadata.labels ?? {}) };
  if (cloned) {
    const { group, version } = groupVersion(generated.apiVersion ?? "");
    const sourceName = labelValue(String(metadata.name ?? ""));
    if (sourceName !== undefined) out[GenerateLabels.sourceName] = sourceName;
    if (sourceNamespace !== undefined) out[GenerateLabels.sourceNamespace] = sourceNamespace;
    out[GenerateLabels.sourceKind] = generated.kind ?? "";
    out[GenerateLabels.sourceGroup] = group;
    out[GenerateLabels.sourceVersion] = version;
  }
  Object.assign(out, labels);
  const annotations = Object.fromEntries(
    Object.entries(metadata.annotations ?? {}).filter(([k]) => !SOURCE_ONLY_ANNOTATIONS.has(k)),
  );
  return {
    ...content,
    metadata: {
      name: metadata.name,
      ...(metadata.namespace ? { namespace: metadata.namespace } : {}),
      labels: out,
      ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
    },
  } as KubeObject;
}

/** Deletes what a GeneratingPolicy generated for one trigger. */
async function removeTriggerDownstream(
  deps: CelGenerateDeps,
  policy: CachedCelPolicy,
  trigger: TriggerRef,
  signal: AbortSignal,
): Promise<ProcessOutcome> {
  const who = trigger.uid
    ? [`${GenerateLabels.triggerUid}=${trigger.uid}`]
    : [
        `${GenerateLabels.triggerKind}=${trigger.kind}`,
        `${GenerateLabels.triggerNamespace}=${trigger.namespace}`,
        ...(labelValue(trigger.name) ? [`${GenerateLabels.triggerName}=${trigger.name}`] : []),
      ];
  const gone = await deleteDownstream(
    deps.client,
    deps.generatedKinds.of(policy.key),
    [...celPolicySelector(policy.compiled), ...who].join(","),
    signal,
  );
  if (!gone.ok) return failed(gone, deps.user, "delete");
  return { state: "Completed", message: `deleted ${gone.deleted} downstream resource(s)`, generated: [] };
}

/** Processes one `cel-generate` UpdateRequest (API failures are a `Failed` outcome, never thrown). */
export async function processCelGenerate(
  deps: CelGenerateDeps,
  ur: UpdateRequest,
  signal: AbortSignal,
): Promise<ProcessOutcome> {
  const policy = deps.celPolicies.get(celRequestPolicyKey("cel-generate", ur.spec.policy));
  if (policy === undefined || policy.compiled.type !== "generate")
    return { state: "Skip", message: `GeneratingPolicy ${ur.spec.policy} not found` };
  const settings = generatingSettings(policy.policy);
  if (ur.spec.deleteDownstream) return removeTriggerDownstream(deps, policy, ur.spec.resource, signal);
  const read = await readTrigger(deps.client, ur.spec.resource, signal);
  if (!read.ok) return failed(read, deps.user, "get");
  const trigger = read.object;
  if (trigger === undefined) return triggerMissing(ur);
  const triggerRef: TriggerRef = {
    ...ur.spec.resource,
    uid: String(trigger.metadata?.uid ?? ur.spec.resource.uid),
  };
  const data = createResourceData({ client: deps.client, scan: deps.scan });
  const request = { ...engineRequest(deps, ur, trigger), contextLoader: data.loader };
  const started = deps.monotonic();
  const response = await data.evaluate(() => deps.celEngine.generate(policy.compiled, request), signal);
  const rule = response.rules[0];
  if (rule !== undefined)
    deps.onEvaluated?.(
      {
        policyName: policy.compiled.name,
        background: policy.compiled.background,
        resourceKind: ur.spec.resource.kind,
        resourceNamespace: ur.spec.resource.namespace,
        operation: request.operation ?? "CREATE",
        // An admitted trigger's UpdateRequest carries the admission's operation; generateExisting and
        // synchronization write none.
        cause: ur.spec.context?.admissionRequestInfo?.operation ? "admission_request" : "background_scan",
        result: rule.status,
      },
      (deps.monotonic() - started) / 1000,
    );
  if (rule === undefined || rule.status === "skip") {
    // A PolicyException's skip is reported (the exceptions guide's GeneratingPolicy report).
    const evaluated = rule?.exception === undefined ? undefined : { trigger, response };
    // A synchronized policy that no longer applies to its trigger takes its downstream along.
    if (settings.synchronize) {
      const removed = await removeTriggerDownstream(deps, policy, triggerRef, signal);
      return removed.state === "Completed" && evaluated !== undefined ? { ...removed, evaluated } : removed;
    }
    return {
      state: "Skip",
      message: "the policy does not apply to the trigger",
      ...(evaluated === undefined ? {} : { evaluated }),
    };
  }
  if (rule.status !== "pass") return { state: "Failed", forbidden: false, message: rule.message };
  const labels = celDownstreamLabels(policy.compiled, triggerRef);
  const generated: KubeObject[] = [];
  for (const g of rule.generated ?? []) {
    const uid = g.object.metadata?.uid;
    const sourceNamespace = typeof uid === "string" && uid !== "" ? data.namespaceOf(uid) : undefined;
    const desired = celDesiredObject(g.object, labels, sourceNamespace);
    if (settings.synchronize && sourceNamespace !== undefined)
      deps.generatedKinds.addSource({
        apiVersion: desired.apiVersion ?? "",
        kind: desired.kind ?? "",
        namespace: sourceNamespace,
      });
    const namespace = policy.compiled.namespace;
    if (namespace !== undefined && desired.metadata?.namespace !== namespace)
      return {
        state: "Failed",
        forbidden: false,
        message: `a NamespacedGeneratingPolicy generates only in its namespace ${namespace}, not ${describeObject(desired)}`,
      };
    deps.generatedKinds.add(policy.key, { apiVersion: desired.apiVersion ?? "", kind: desired.kind ?? "" });
    const presence = deps.downstreamPresence?.(desired) ?? "unknown";
    const applied = await applyDownstream(deps.client, desired, settings.synchronize, signal, presence);
    if (!applied.ok) return failed(applied, deps.user, "create");
    generated.push(desired);
  }
  // The policy's result goes to the reports (an ephemeral report of the trigger), as upstream's
  // background controller reports a GeneratingPolicy (the exceptions guide's report).
  return {
    state: "Completed",
    message: `${generated.length} resource(s) generated`,
    generated,
    evaluated: { trigger, response },
  };
}
