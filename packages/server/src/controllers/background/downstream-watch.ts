/**
 * Synchronization of generated resources: informers on what synchronized generate rules write
 * (selected by upstream's `generate.kyverno.io/policy-name` label) and on their clone sources. A
 * downstream changed or deleted by someone else, or a clone source that changed, becomes an
 * UpdateRequest for the trigger it belongs to; processing it restores the rule's form. The informers
 * follow the policies: kinds no synchronized rule writes or reads any more stop being watched.
 */
import type { KubeObject } from "@kyverno-ts/api";
import { createInformer, type Informer, type KubeClient } from "@kyverno-ts/kube";
import type { Logger } from "../../logger.js";
import type { CachedPolicy, PolicyCache } from "../../policycache/policy-cache.js";
import { type DownstreamPresence, GenerateLabels } from "./downstream.js";
import { type CloneSource, cloneSources, downstreamKinds, type KindRef } from "./rule-kinds.js";
import type { TriggerRef, UpdateRequestIntent } from "./update-request.js";

/** Where intents go (the UpdateRequest intake). */
export interface IntentSink {
  add(intent: UpdateRequestIntent): boolean;
}

/** The watch; see `createDownstreamWatch`. */
export interface DownstreamWatch {
  /** Re-reads the policies: starts and stops informers to match their synchronized rules. */
  policyChanged(): void;
  /** Asks for every trigger of a policy's downstream to be processed again (its rules changed). */
  resync(policyKey: string): number;
  /**
   * Whether a generated object exists as far as the informer on its kind knows (`unknown`: no synced
   * informer on the kind, which is watched only while a synchronized rule writes it). A hint for
   * choosing the cheaper write, never a fact to act on: the informer may lag.
   */
  presence(object: KubeObject): DownstreamPresence;
  stop(): Promise<void>;
}

interface SyncRule {
  policy: CachedPolicy;
  rule: string;
  kinds: KindRef[];
  sources: CloneSource[];
}

const kindKey = (k: KindRef): string => `${k.apiVersion}/${k.kind}`;
const sourceKey = (s: CloneSource): string => `${s.apiVersion}/${s.kind}@${s.namespace}`;

/** The cache key of the policy a downstream object names in its labels. */
function policyKeyOf(labels: Record<string, string>): string | undefined {
  const name = labels[GenerateLabels.policyName];
  if (!name) return undefined;
  const ns = labels[GenerateLabels.policyNamespace];
  return ns ? `${ns}/${name}` : name;
}

/** The trigger a downstream object names in its labels; undefined without its name. */
export function triggerOfLabels(labels: Record<string, string>): TriggerRef | undefined {
  const name = labels[GenerateLabels.triggerName];
  const kind = labels[GenerateLabels.triggerKind];
  const version = labels[GenerateLabels.triggerVersion];
  if (!name || !kind || !version) return undefined;
  const group = labels[GenerateLabels.triggerGroup];
  return {
    apiVersion: group ? `${group}/${version}` : version,
    kind,
    namespace: labels[GenerateLabels.triggerNamespace] ?? "",
    name,
    uid: labels[GenerateLabels.triggerUid] ?? "",
  };
}

/** The synchronized generate rules of the cached policies, with what they write and read. */
function syncRulesOf(cache: PolicyCache): SyncRule[] {
  return cache.policies().flatMap((policy) =>
    policy.compiled.rules
      .filter((r) => r.kind === "generate" && r.rule.generate?.synchronize === true)
      .map((r) => ({
        policy,
        rule: r.name,
        kinds: downstreamKinds(r.rule),
        sources: cloneSources(r.rule),
      })),
  );
}

/** An intent for the trigger a downstream object of a synchronized rule names; false if none was added. */
function regenerate(cache: PolicyCache, intents: IntentSink, labels: Record<string, string>): boolean {
  const key = policyKeyOf(labels);
  const rule = labels[GenerateLabels.ruleName];
  const trigger = triggerOfLabels(labels);
  if (key === undefined || rule === undefined || trigger === undefined) return false;
  const policy = cache.get(key);
  const info = policy?.compiled.rules.find((r) => r.name === rule);
  if (policy === undefined || info?.rule.generate?.synchronize !== true) return false;
  return intents.add({
    requestType: "generate",
    policy: key,
    trigger,
    rules: [rule],
    deleteDownstream: false,
  });
}

/** The downstream objects (from the informers) of the rules that read a changed clone source. */
function readersOf(
  rules: readonly SyncRule[],
  downstream: ReadonlyMap<string, Informer<KubeObject>>,
  source: KubeObject,
): Array<Record<string, string>> {
  const ns = source.metadata?.namespace ?? "";
  const name = source.metadata?.name ?? "";
  const out: Array<Record<string, string>> = [];
  for (const r of rules) {
    const reads = r.sources.some(
      (s) => s.kind === source.kind && s.namespace === ns && (s.name === undefined || s.name === name),
    );
    if (!reads) continue;
    for (const k of r.kinds)
      for (const o of downstream.get(kindKey(k))?.list() ?? []) {
        const labels = o.metadata?.labels ?? {};
        if (policyKeyOf(labels) !== r.policy.key || labels[GenerateLabels.ruleName] !== r.rule) continue;
        const copied = labels[GenerateLabels.sourceName];
        if (copied === undefined || copied === name) out.push(labels);
      }
  }
  return out;
}

/** The kinds the rules write and the sources they read, by informer key. */
function wantedBy(rules: readonly SyncRule[]) {
  const kinds = new Map<string, KindRef>();
  const sources = new Map<string, CloneSource>();
  for (const r of rules) {
    for (const k of r.kinds) kinds.set(kindKey(k), k);
    for (const s of r.sources) sources.set(sourceKey(s), s);
  }
  return { kinds, sources };
}

/** Stops and forgets the informers no rule wants any more. */
function dropUnwanted(
  informers: Map<string, Informer<KubeObject>>,
  wanted: ReadonlyMap<string, unknown>,
): void {
  for (const [key, informer] of informers)
    if (!wanted.has(key)) {
      informers.delete(key);
      void informer.stop();
    }
}

/** Creates the watch (no informer runs before `policyChanged`). */
export function createDownstreamWatch(options: {
  client: KubeClient;
  cache: PolicyCache;
  logger: Logger;
  intents: IntentSink;
}): DownstreamWatch {
  const { client, cache, logger, intents } = options;
  const downstream = new Map<string, Informer<KubeObject>>();
  const sources = new Map<string, Informer<KubeObject>>();

  const syncRules = (): SyncRule[] => syncRulesOf(cache);
  const again = (labels: Record<string, string>): boolean => regenerate(cache, intents, labels);
  const onDownstream = (object: KubeObject, old?: KubeObject): void => {
    if (old !== undefined && sameContent(object, old)) return;
    again(object.metadata?.labels ?? {});
  };
  /** The downstream of the rules reading a changed source. */
  const onSource = (object: KubeObject): void => {
    for (const labels of readersOf(syncRules(), downstream, object)) again(labels);
  };

  const watch = (
    map: Map<string, Informer<KubeObject>>,
    key: string,
    make: () => Informer<KubeObject>,
  ): void => {
    if (map.has(key)) return;
    const informer = make();
    map.set(key, informer);
    informer.on("error", (e) => {
      if (e.source !== "handler") logger.warn({ watch: key, reason: e.failure.reason }, "cannot watch");
    });
    void informer.start();
  };

  return {
    policyChanged() {
      const { kinds: wantedKinds, sources: wantedSources } = wantedBy(syncRules());
      for (const [key, k] of wantedKinds)
        watch(downstream, key, () => {
          const i = createInformer<KubeObject>({ client, ...k, labelSelector: GenerateLabels.policyName });
          i.on("update", (o, old) => onDownstream(o, old));
          i.on("delete", (o) => onDownstream(o));
          return i;
        });
      for (const [key, s] of wantedSources)
        watch(sources, key, () => {
          const i = createInformer<KubeObject>({
            client,
            apiVersion: s.apiVersion,
            kind: s.kind,
            ...(s.namespace ? { namespace: s.namespace } : {}),
          });
          i.on("update", (o, old) => {
            if (!sameContent(o, old)) onSource(o);
          });
          i.on("delete", onSource);
          return i;
        });
      dropUnwanted(downstream, wantedKinds);
      dropUnwanted(sources, wantedSources);
    },
    resync(policyKey) {
      let n = 0;
      for (const informer of downstream.values())
        for (const o of informer.list()) {
          const labels = o.metadata?.labels ?? {};
          if (policyKeyOf(labels) === policyKey && again(labels)) n++;
        }
      return n;
    },
    presence(object) {
      const informer = downstream.get(
        kindKey({ apiVersion: object.apiVersion ?? "", kind: object.kind ?? "" }),
      );
      if (informer === undefined || !informer.hasSynced()) return "unknown";
      const found = informer.get(object.metadata?.namespace, object.metadata?.name ?? "");
      return found === undefined ? "absent" : "present";
    },
    async stop() {
      await Promise.all([...downstream.values(), ...sources.values()].map((i) => i.stop()));
    },
  };
}

/** Whether two versions of an object differ only in server-managed metadata and status. */
export function sameContent(a: KubeObject, b: KubeObject | undefined): boolean {
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
