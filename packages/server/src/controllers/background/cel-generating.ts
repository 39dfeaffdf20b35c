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
 * The policies come from the controller's CEL policy store (see `cel-policy-watch.ts`).
 */
import type { KubeObject } from "@kyverno-ts/api";
import type { CelEngine } from "@kyverno-ts/engine";
import { BUILTIN_RESOURCES, createInformer, type Informer, type KubeClient } from "@kyverno-ts/kube";
import type { Logger } from "../../logger.js";
import type { CachedCelPolicy, CelPolicyStore } from "../../policycache/cel-policy-store.js";
import {
  celPolicySelector,
  createGeneratedKinds,
  type GeneratedKinds,
  type SourceRef,
} from "./cel-generate.js";
import { existingTriggers } from "./cel-policy-watch.js";
import { deleteDownstream, describeObject, GenerateLabels } from "./downstream.js";
import { type IntentSink, triggerOfLabels } from "./downstream-watch.js";
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

/** The store key of the GeneratingPolicy a downstream object's labels name (none for generate rules). */
function policyKeyOfLabels(labels: Record<string, string>): string | undefined {
  const name = labels[GenerateLabels.policyName];
  if (!name || labels[GenerateLabels.ruleName] !== undefined) return undefined;
  const ns = labels[GenerateLabels.policyNamespace];
  return ns ? `NamespacedGeneratingPolicy/${ns}/${name}` : `GeneratingPolicy/${name}`;
}

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

/** Whether two versions of an object differ only in server-managed metadata and status. */
function sameContent(a: KubeObject, b: KubeObject | undefined): boolean {
  if (b === undefined) return false;
  const strip = (o: KubeObject) => {
    const { metadata, status: _s, ...rest } = o;
    return JSON.stringify({
      ...rest,
      labels: metadata?.labels ?? {},
      annotations: metadata?.annotations ?? {},
    });
  };
  return strip(a) === strip(b);
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

/** Creates the reactions (no informer runs before a policy generated something). */
export function createCelGenerating(options: CelGeneratingOptions): CelGenerating {
  const { client, store, engine, logger, intents } = options;
  const known = new Map<string, CachedCelPolicy>();
  const informers = new Map<string, Informer<KubeObject>>();
  const sources = new Map<string, Informer<KubeObject>>();
  let stopped = false;

  const regenerate = (labels: Record<string, string>): boolean => {
    const key = policyKeyOfLabels(labels);
    const trigger = triggerOfLabels(labels);
    const policy = key === undefined ? undefined : store.get(key);
    if (policy === undefined || trigger === undefined || !generatingSettings(policy.policy).synchronize)
      return false;
    return intents.add({
      requestType: "cel-generate",
      policy: celPolicyRef(policy.compiled),
      trigger,
      rules: [policy.compiled.name],
      deleteDownstream: false,
      synchronize: true,
    });
  };

  const watch = (kind: KindRef): void => {
    const id = `${kind.apiVersion}/${kind.kind}`;
    if (stopped || informers.has(id)) return;
    const informer = createInformer<KubeObject>({
      client,
      ...kind,
      labelSelector: GenerateLabels.policyName,
    });
    informer.on("update", (o, old) => {
      if (!sameContent(o, old)) regenerate(o.metadata?.labels ?? {});
    });
    informer.on("delete", (o) => regenerate(o.metadata?.labels ?? {}));
    informer.on("error", (e) => {
      if (e.source !== "handler") logger.warn({ watch: id, reason: e.failure.reason }, "cannot watch");
    });
    informers.set(id, informer);
    void informer.start();
  };
  /** The synchronized copies of a clone source (from the downstream informers). */
  const copiesOf = (source: KubeObject): KubeObject[] => {
    const informer = informers.get(`${source.apiVersion}/${source.kind}`);
    return (informer?.list() ?? []).filter((o) => {
      const labels = o.metadata?.labels ?? {};
      const key = policyKeyOfLabels(labels);
      const policy = key === undefined ? undefined : store.get(key);
      return (
        policy !== undefined &&
        generatingSettings(policy.policy).synchronize &&
        labels[GenerateLabels.sourceKind] === source.kind &&
        labels[GenerateLabels.sourceNamespace] === (source.metadata?.namespace ?? "") &&
        labels[GenerateLabels.sourceName] === source.metadata?.name
      );
    });
  };
  const onSourceDeleted = async (source: KubeObject): Promise<void> => {
    for (const copy of copiesOf(source)) {
      const ref = {
        apiVersion: copy.apiVersion ?? "",
        kind: copy.kind ?? "",
        name: copy.metadata?.name ?? "",
        ...(copy.metadata?.namespace ? { namespace: copy.metadata.namespace } : {}),
      };
      const gone = await client.delete(ref);
      if (gone.ok || gone.status === 404)
        logger.info(
          { object: describeObject(copy), source: describeObject(source) },
          "clone deleted with its source",
        );
      else
        logger.error(
          { object: describeObject(copy), message: gone.message },
          "cannot delete a clone of a deleted source",
        );
    }
  };
  const watchSource = (source: SourceRef): void => {
    const id = `${source.apiVersion}/${source.kind}@${source.namespace}`;
    if (stopped || sources.has(id)) return;
    const informer = createInformer<KubeObject>({
      client,
      apiVersion: source.apiVersion,
      kind: source.kind,
      ...(source.namespace ? { namespace: source.namespace } : {}),
    });
    informer.on("update", (o, old) => {
      if (sameContent(o, old)) return;
      for (const copy of copiesOf(o)) regenerate(copy.metadata?.labels ?? {});
    });
    informer.on("delete", (o) => {
      if (options.isLeader()) void onSourceDeleted(o);
    });
    informer.on("error", (e) => {
      if (e.source !== "handler") logger.warn({ watch: id, reason: e.failure.reason }, "cannot watch");
    });
    sources.set(id, informer);
    void informer.start();
  };
  const kinds = createGeneratedKinds(watch, watchSource);

  /** UpdateRequests for the existing triggers of a `generateExisting` policy. */
  const applyToExisting = async (policy: CachedCelPolicy): Promise<void> => {
    let offered = 0;
    for (const { object: resource, apiVersion, kind } of await existingTriggers(client, policy, logger)) {
      const ns = resource.metadata?.namespace ?? "";
      const labels = ns ? options.namespaceLabels(ns) : undefined;
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
  };

  /** Deletes the downstream of a deleted synchronized policy (unless it orphans it). */
  const deleteAll = async (policy: CachedCelPolicy): Promise<void> => {
    const gone = await deleteDownstream(
      client,
      kinds.of(policy.key),
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
  };

  /**
   * Recovers the kinds the synchronized GeneratingPolicies generated (and their clone sources) from
   * the downstream objects in the cluster: one list per candidate kind, selected by the policy label.
   */
  const recoverDownstream = async (): Promise<void> => {
    const synchronized = new Set(
      store
        .policies()
        .filter((p) => p.compiled.type === "generate" && generatingSettings(p.policy).synchronize)
        .map((p) => p.key),
    );
    if (synchronized.size === 0) return;
    let found = 0;
    for (const kind of await candidateKinds(client, logger)) {
      if (!options.isLeader()) return;
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
  };

  const resync = (key: string): number => {
    let n = 0;
    for (const informer of informers.values())
      for (const o of informer.list()) {
        const labels = o.metadata?.labels ?? {};
        if (policyKeyOfLabels(labels) === key && regenerate(labels)) n++;
      }
    return n;
  };

  const changed = async (key: string): Promise<void> => {
    if (!isGenerating(key)) return;
    const before = known.get(key);
    const after = store.get(key);
    if (after === undefined) known.delete(key);
    else known.set(key, after);
    if (!options.isLeader()) return;
    try {
      if (after === undefined) {
        // Deleted (a policy that no longer compiles keeps its status and its downstream).
        if (before === undefined || store.status(key) !== undefined) return;
        const settings = generatingSettings(before.policy);
        if (settings.synchronize && !settings.orphanDownstreamOnPolicyDelete) await deleteAll(before);
        kinds.forget(key);
        return;
      }
      if (generatingSettings(after.policy).generateExisting) await applyToExisting(after);
      if (before !== undefined && generatingSettings(after.policy).synchronize) resync(key);
    } catch (error) {
      logger.error({ policy: key, err: error }, "cannot apply a GeneratingPolicy change");
    }
  };
  return {
    kinds,
    changed,
    async leaderStarted() {
      await recoverDownstream().catch((error: unknown) =>
        logger.error({ err: error }, "cannot recover the downstream kinds of GeneratingPolicies"),
      );
      for (const policy of store.policies()) {
        if (!options.isLeader()) return;
        if (policy.compiled.type !== "generate" || !generatingSettings(policy.policy).generateExisting)
          continue;
        await applyToExisting(policy).catch((error: unknown) =>
          logger.error({ policy: policy.key, err: error }, "cannot apply a policy to existing resources"),
        );
      }
    },
    async stop() {
      stopped = true;
      await Promise.all([...informers.values(), ...sources.values()].map((i) => i.stop()));
    },
  };
}
