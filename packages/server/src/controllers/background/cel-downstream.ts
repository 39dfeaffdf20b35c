/**
 * The informers behind synchronized GeneratingPolicies: the downstream kinds a policy was seen
 * generating (selected by the `generate.kyverno.io/policy-name` label) and the clone sources. A
 * downstream object deleted or changed by someone else is processed again (restored); a clone
 * source changed has its copies processed again (synced), deleted has its copies deleted (leader only).
 */
import type { KubeObject } from "@kyverno-ts/api";
import { createInformer, type Informer, type KubeClient } from "@kyverno-ts/kube";
import type { Logger } from "../../logger.js";
import type { CelPolicyStore } from "../../policycache/cel-policy-store.js";
import type { SourceRef } from "./cel-generate.js";
import { describeObject, GenerateLabels } from "./downstream.js";
import { type IntentSink, sameContent, triggerOfLabels } from "./downstream-watch.js";
import type { KindRef } from "./rule-kinds.js";
import { celPolicyRef, generatingSettings } from "./update-request.js";

/** The store key of the GeneratingPolicy a downstream object's labels name (none for generate rules). */
export function policyKeyOfLabels(labels: Record<string, string>): string | undefined {
  const name = labels[GenerateLabels.policyName];
  if (!name || labels[GenerateLabels.ruleName] !== undefined) return undefined;
  const ns = labels[GenerateLabels.policyNamespace];
  return ns ? `NamespacedGeneratingPolicy/${ns}/${name}` : `GeneratingPolicy/${name}`;
}

/** The synchronized copies of a clone source among the objects a downstream informer holds. */
function synchronizedCopies(
  informer: Informer<KubeObject> | undefined,
  store: CelPolicyStore,
  source: KubeObject,
): KubeObject[] {
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
}

/** Deletes the copies of a deleted clone source (their lifecycle follows their source). */
async function deleteCopies(
  client: KubeClient,
  logger: Logger,
  copies: KubeObject[],
  source: KubeObject,
): Promise<void> {
  for (const copy of copies) {
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
}

/** Options of `createCelDownstream`. */
export interface CelDownstreamOptions {
  client: KubeClient;
  store: CelPolicyStore;
  logger: Logger;
  intents: IntentSink;
  isLeader: () => boolean;
}

/** The downstream and clone-source informers; see `createCelDownstream`. */
export interface CelDownstream {
  /** Watches a downstream kind (once). */
  watch(kind: KindRef): void;
  /** Watches a clone source kind in its namespace (once). */
  watchSource(source: SourceRef): void;
  /** Processes again every watched downstream object of a synchronized policy; how many. */
  resync(key: string): number;
  stop(): Promise<void>;
}

/** An informer whose list and watch failures are logged under `id`. */
function watched(
  logger: Logger,
  id: string,
  options: Parameters<typeof createInformer>[0],
): Informer<KubeObject> {
  const informer = createInformer<KubeObject>(options);
  informer.on("error", (e) => {
    if (e.source !== "handler") logger.warn({ watch: id, reason: e.failure.reason }, "cannot watch");
  });
  return informer;
}

/** Creates the informers (none runs before a kind is watched). */
export function createCelDownstream(options: CelDownstreamOptions): CelDownstream {
  const { client, store, logger, intents } = options;
  const informers = new Map<string, Informer<KubeObject>>();
  const sources = new Map<string, Informer<KubeObject>>();
  let stopped = false;

  /** A `cel-generate` intent for the trigger a synchronized downstream object names; false if none. */
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

  const copiesOf = (source: KubeObject): KubeObject[] =>
    synchronizedCopies(informers.get(`${source.apiVersion}/${source.kind}`), store, source);

  return {
    watch(kind) {
      const id = `${kind.apiVersion}/${kind.kind}`;
      if (stopped || informers.has(id)) return;
      const informer = watched(logger, id, {
        client,
        ...kind,
        labelSelector: GenerateLabels.policyName,
      });
      informer.on("update", (o, old) => {
        if (!sameContent(o, old)) regenerate(o.metadata?.labels ?? {});
      });
      informer.on("delete", (o) => regenerate(o.metadata?.labels ?? {}));
      informers.set(id, informer);
      void informer.start();
    },
    watchSource(source) {
      const id = `${source.apiVersion}/${source.kind}@${source.namespace}`;
      if (stopped || sources.has(id)) return;
      const informer = watched(logger, id, {
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
        if (options.isLeader()) void deleteCopies(client, logger, copiesOf(o), o);
      });
      sources.set(id, informer);
      void informer.start();
    },
    resync(key) {
      let n = 0;
      for (const informer of informers.values())
        for (const o of informer.list()) {
          const labels = o.metadata?.labels ?? {};
          if (policyKeyOfLabels(labels) === key && regenerate(labels)) n++;
        }
      return n;
    },
    async stop() {
      stopped = true;
      await Promise.all([...informers.values(), ...sources.values()].map((i) => i.stop()));
    },
  };
}
