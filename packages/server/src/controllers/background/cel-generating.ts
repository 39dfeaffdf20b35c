/**
 * What GeneratingPolicy changes ask of the background controller (leader only), as upstream:
 * - `evaluation.generateExisting`: the existing triggers the policy matches get UpdateRequests when it
 *   is created or changed (and when a new leader starts);
 * - a synchronized policy changed: its downstream is processed again (the policy's form changed);
 * - a synchronized policy deleted: its downstream is deleted, unless `orphanDownstreamOnPolicyDelete`
 *   (clones are kept: their lifecycle follows their source);
 * - a synchronized policy's downstream deleted or changed by someone else: processed again (restored);
 * - a clone source of a synchronized policy changed: its copies are processed again (synced); deleted:
 *   its copies are deleted.
 * The downstream kinds are the ones the policy was seen generating (`GeneratedKinds`): they are
 * watched (selected by the `generate.kyverno.io/policy-name` label) from the first generation on.
 * A new leader recovers them (and the clone sources) from the downstream objects already in the
 * cluster, by their `generate.kyverno.io/*` labels: what earlier replicas generated stays synchronized.
 * The downstream and clone-source informers are `cel-downstream.ts`; the policies come from the
 * controller's CEL policy store, which the shared cluster state feeds.
 */
import type { CelEngine } from "@kyverno-ts/engine";
import { BUILTIN_RESOURCES, type KubeClient } from "@kyverno-ts/kube";
import type { Logger } from "../../logger.js";
import type { CachedCelPolicy, CelPolicyStore } from "../../policycache/cel-policy-store.js";
import { createCelDownstream, policyKeyOfLabels } from "./cel-downstream.js";
import { celPolicySelector, createGeneratedKinds, type GeneratedKinds } from "./cel-generate.js";
import { deleteDownstream, GenerateLabels } from "./downstream.js";
import type { IntentSink } from "./downstream-watch.js";
import { existingTriggers } from "./existing-triggers.js";
import type { KindRef } from "./rule-kinds.js";
import { celPolicyRef, generatingSettings } from "./update-request.js";

/** The reactions; see the module comment. */
export interface CelGenerating {
  /** The kinds each policy generated (the processor adds to it). */
  readonly kinds: GeneratedKinds;
  /** A GeneratingPolicy was loaded, changed, failed to load or went (its store key). */
  changed(key: string): Promise<void>;
  leaderStarted(): Promise<void>;
  stop(): Promise<void>;
}

const isGenerating = (key: string): boolean =>
  key.startsWith("GeneratingPolicy/") || key.startsWith("NamespacedGeneratingPolicy/");

/** Built-in kinds no object of can be listed (a downstream cannot be one). */
const UNLISTABLE = new Set(["Binding", "TokenReview", "SubjectAccessReview"]);

/**
 * The kinds a downstream object can be: the built-in kinds (their preferred version) and the kinds
 * of the CustomResourceDefinitions (their storage version), from one CRD list.
 */
async function candidateKinds(client: KubeClient, logger: Logger): Promise<KindRef[]> {
  const out: KindRef[] = BUILTIN_RESOURCES.filter((r) => !UNLISTABLE.has(r.kind)).flatMap((r) =>
    r.apiVersions[0] === undefined ? [] : [{ apiVersion: r.apiVersions[0], kind: r.kind }],
  );
  const crds = await client.list({ apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition" });
  if (!crds.ok) {
    logger.warn(
      { reason: crds.reason, message: crds.message },
      "cannot list CRDs: custom downstream kinds not recovered",
    );
    return out;
  }
  for (const crd of crds.value.items) {
    const spec = (crd as { spec?: CrdSpec }).spec;
    const version = spec?.versions?.find((v) => v.storage)?.name;
    const kind = spec?.names?.kind;
    if (spec?.group && version && kind) out.push({ apiVersion: `${spec.group}/${version}`, kind });
  }
  return out;
}

interface CrdSpec {
  group?: string;
  names?: { kind?: string };
  versions?: Array<{ name?: string; storage?: boolean }>;
}

/** Options of `createCelGenerating`. */
export interface CelGeneratingOptions {
  client: KubeClient;
  store: CelPolicyStore;
  engine: CelEngine;
  logger: Logger;
  intents: IntentSink;
  isLeader: () => boolean;
  namespaceLabels: (namespace: string) => Record<string, string> | undefined;
}

/** What the reactions share. */
type Deps = CelGeneratingOptions & { kinds: GeneratedKinds };

/** UpdateRequests for the existing triggers of a `generateExisting` policy. */
async function applyToExisting(deps: Deps, policy: CachedCelPolicy): Promise<void> {
  const { client, engine, logger, intents } = deps;
  let offered = 0;
  for (const { object: resource, apiVersion, kind } of await existingTriggers(client, policy, logger)) {
    const ns = resource.metadata?.namespace ?? "";
    const labels = ns ? deps.namespaceLabels(ns) : undefined;
    const rule = engine.generate(policy.compiled, {
      resource,
      operation: "CREATE",
      ...(labels ? { namespaceLabels: labels } : {}),
    }).rules[0];
    if (rule === undefined || (rule.status !== "pass" && rule.status !== "error")) continue;
    const added = intents.add({
      requestType: "cel-generate",
      policy: celPolicyRef(policy.compiled),
      rules: [policy.compiled.name],
      deleteDownstream: false,
      trigger: {
        apiVersion: resource.apiVersion ?? apiVersion,
        kind: resource.kind ?? kind,
        namespace: ns,
        name: resource.metadata?.name ?? "",
        uid: String(resource.metadata?.uid ?? ""),
      },
    });
    if (added) offered++;
  }
  logger.info({ policy: policy.key, updateRequests: offered }, "policy applied to existing resources");
}

/** Deletes the downstream of a deleted synchronized policy (unless it orphans it). */
async function deleteAll(deps: Deps, policy: CachedCelPolicy): Promise<void> {
  const { logger } = deps;
  const gone = await deleteDownstream(
    deps.client,
    deps.kinds.of(policy.key),
    // Clones follow their source, not the policy: they are kept (upstream's synchronization table).
    [...celPolicySelector(policy.compiled), `!${GenerateLabels.sourceKind}`].join(","),
    new AbortController().signal,
  );
  if (gone.ok)
    logger.info({ policy: policy.key, deleted: gone.deleted }, "downstream of a deleted policy deleted");
  else
    logger.error(
      { policy: policy.key, object: gone.object, message: gone.failure.message },
      "cannot delete the downstream of a deleted policy",
    );
}

/**
 * Recovers the kinds the synchronized GeneratingPolicies generated (and their clone sources) from
 * the downstream objects in the cluster: one list per candidate kind, selected by the policy label.
 */
async function recoverDownstream(deps: Deps): Promise<void> {
  const { client, logger, kinds } = deps;
  const synchronized = new Set(
    deps.store
      .policies()
      .filter((p) => p.compiled.type === "generate" && generatingSettings(p.policy).synchronize)
      .map((p) => p.key),
  );
  if (synchronized.size === 0) return;
  let found = 0;
  for (const kind of await candidateKinds(client, logger)) {
    if (!deps.isLeader()) return;
    const listed = await client.list({ ...kind, labelSelector: GenerateLabels.policyName });
    if (!listed.ok) continue;
    for (const o of listed.value.items) {
      const labels = o.metadata?.labels ?? {};
      const key = policyKeyOfLabels(labels);
      if (key === undefined || !synchronized.has(key)) continue;
      found++;
      kinds.add(key, kind);
      // A copy of a clone source: its source kind (the copy's own) in the source's namespace.
      if (labels[GenerateLabels.sourceKind] !== undefined)
        kinds.addSource({ ...kind, namespace: labels[GenerateLabels.sourceNamespace] ?? "" });
    }
  }
  logger.info(
    { policies: synchronized.size, downstream: found },
    "watching the downstream of synchronized GeneratingPolicies",
  );
}

/** `generateExisting` for every GeneratingPolicy asking for it, when a leader starts. */
async function applyAllToExisting(deps: Deps): Promise<void> {
  for (const policy of deps.store.policies()) {
    if (!deps.isLeader()) return;
    if (policy.compiled.type !== "generate" || !generatingSettings(policy.policy).generateExisting) continue;
    await applyToExisting(deps, policy).catch((error: unknown) =>
      deps.logger.error({ policy: policy.key, err: error }, "cannot apply a policy to existing resources"),
    );
  }
}

/** Creates the reactions (no informer runs before a policy generated something). */
export function createCelGenerating(options: CelGeneratingOptions): CelGenerating {
  const { store, logger } = options;
  const known = new Map<string, CachedCelPolicy>();
  const downstream = createCelDownstream(options);
  const deps: Deps = { ...options, kinds: createGeneratedKinds(downstream.watch, downstream.watchSource) };

  /** A policy's new form: deleted (its downstream too, unless orphaned), generateExisting, resync. */
  const react = async (
    key: string,
    before: CachedCelPolicy | undefined,
    after: CachedCelPolicy | undefined,
  ) => {
    if (after === undefined) {
      // Deleted (a policy that no longer compiles keeps its status and its downstream).
      if (before === undefined || store.status(key) !== undefined) return;
      const settings = generatingSettings(before.policy);
      if (settings.synchronize && !settings.orphanDownstreamOnPolicyDelete) await deleteAll(deps, before);
      deps.kinds.forget(key);
      return;
    }
    if (generatingSettings(after.policy).generateExisting) await applyToExisting(deps, after);
    if (before !== undefined && generatingSettings(after.policy).synchronize) downstream.resync(key);
  };

  return {
    kinds: deps.kinds,
    async changed(key) {
      if (!isGenerating(key)) return;
      const before = known.get(key);
      const after = store.get(key);
      if (after === undefined) known.delete(key);
      else known.set(key, after);
      if (!options.isLeader()) return;
      try {
        await react(key, before, after);
      } catch (error) {
        logger.error({ policy: key, err: error }, "cannot apply a GeneratingPolicy change");
      }
    },
    async leaderStarted() {
      await recoverDownstream(deps).catch((error: unknown) =>
        logger.error({ err: error }, "cannot recover the downstream kinds of GeneratingPolicies"),
      );
      await applyAllToExisting(deps);
    },
    stop: () => downstream.stop(),
  };
}
