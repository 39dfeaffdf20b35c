/**
 * The cluster state every controller reads besides the resources it works on, kept by informers in
 * one place: ClusterPolicies and Policies (compiled once into the policy cache, when the controller
 * has one), PolicyExceptions (only when they are enabled, from the accepted namespaces), the
 * `policies.kyverno.io` kinds the controller asks for (compiled into its CEL policy store),
 * Namespace labels (for `namespaceSelector`, never a request per evaluation), and optionally
 * Kyverno's ConfigMap and the ConfigMaps labelled `cache.kyverno.io/enabled` (context data). Changes
 * reach subscribers as typed `ClusterChange`s once the caches reflect them; kinds are resolved by the
 * one `KindResolver`. A controller opts into what it needs: the cleanup controller watches only
 * Namespaces, the background controller only its four CEL kinds.
 */
import type { KubeObject } from "@kyverno-ts/api";
import { matchWildcard } from "@kyverno-ts/engine";
import { type Clock, createInformer, type Informer, type KubeClient } from "@kyverno-ts/kube";
import {
  defaultKyvernoConfig,
  type KyvernoConfig,
  parseKyvernoConfig,
} from "../controllers/admission/filters.js";
import type { Logger } from "../logger.js";
import type { CelPolicyStore } from "../policycache/cel-policy-store.js";
import type { PolicyCache } from "../policycache/policy-cache.js";
import { CEL_POLICY_KINDS, type CelPolicyKind, createCelFeed } from "./cel-feed.js";
import { type CelWatch, createCelWatch, type WatchFactory } from "./cel-watch.js";
import { type ChangeFanout, type ClusterListener, createChangeFanout } from "./changes.js";
import { createKindResolver, type KindResolver } from "./kinds.js";
import { createPolicyFeed, type PolicyFeed } from "./policy-feed.js";

/** Options of `createClusterState`. */
export interface ClusterStateOptions {
  client: KubeClient;
  /**
   * The cache ClusterPolicies, Policies and PolicyExceptions are loaded into (its engine compiles
   * them); none: they are not watched (a controller that evaluates no classic policy: cleanup).
   */
  cache?: PolicyCache;
  logger: Logger;
  /**
   * Namespaces PolicyExceptions are accepted from, with wildcards (`acceptedExceptionNamespaces` of
   * `--enablePolicyException` / `--exceptionNamespace`); none: PolicyExceptions are not even watched.
   */
  exceptionNamespaces: readonly string[];
  /** Kyverno's ConfigMap, watched when given; `config()` answers the chart's defaults otherwise. */
  kyvernoConfigMap?: { namespace: string; name: string };
  /** Keep the ConfigMaps labelled `cache.kyverno.io/enabled: "true"` in memory (`cachedConfigMap`). */
  cachedConfigMaps?: boolean;
  /** Informer retry delays (default: the kube package's exponential backoff). */
  informerDelay?: (attempt: number) => number;
  /**
   * Where the `policies.kyverno.io` kinds are compiled; when given, each of `celKinds` whose CRD the
   * server serves is watched (and `start` waits for it), with the CEL PolicyExceptions when
   * exceptions are on; a kind whose CRD is installed later is watched from then on (`synced` does not
   * wait for it). Their changes come as `celPolicy` and `celException` changes.
   */
  celPolicies?: CelPolicyStore;
  /**
   * The `policies.kyverno.io` policy kinds to watch (default: all of `CEL_POLICY_KINDS`): a controller
   * names its share, so it watches, and needs a grant for, no other.
   */
  celKinds?: readonly CelPolicyKind[];
  /**
   * Delays between looks at `policies.kyverno.io` kinds whose CRD is not installed yet (default
   * `SERVED_KINDS_BACKOFF`: within about 15 s of the CRD they are watched, without a restart).
   */
  crdDelay?: (attempt: number) => number;
  /** The clock of the informers' retries and of the wait for CRDs (default: the system's). */
  clock?: Clock;
}

/** The shared cluster state; see `createClusterState`. */
export interface ClusterState {
  /** Starts every informer; resolves once all have listed (the cached ConfigMaps excepted). */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** True once every informer `start` waits for has listed (the cache then reflects the cluster). */
  synced(): boolean;
  /** Called with each change once it has reached the cache; returns an unsubscribe function. */
  subscribe(listener: ClusterListener): () => void;
  /** Kinds: webhook rules, informers, admission requests and cleanup policies ask here. */
  readonly kinds: KindResolver;
  /** Kyverno's ConfigMap settings (the Helm chart defaults while there is none). */
  config(): KyvernoConfig;
  /** Labels of a namespace, from the informer's cache. */
  namespaceLabels(namespace: string): Record<string, string> | undefined;
  /** A ConfigMap labelled `cache.kyverno.io/enabled: "true"`, from memory; undefined for others. */
  cachedConfigMap(namespace: string, name: string): KubeObject | undefined;
  /** Grows with every policy or configuration change. */
  revision(): number;
  /** The revision at which a policy last changed (undefined for unknown keys). */
  policyRevision(key: string): number | undefined;
  /** Keys of every stored policy, loadable or not, sorted (CEL policies' `celPolicyKey`s after them). */
  policyKeys(): string[];
  /** The stored object of a policy (with its status), by cache key. */
  policyObject(key: string): KubeObject | undefined;
  /**
   * Whether the policies of a `policies.kyverno.io` kind are all known: the kind is watched and its
   * informer has listed (a kind whose CRD was installed after start is not until then). True when this
   * controller watches no CEL kinds.
   */
  celKindSynced(kind: string): boolean;
  /** Why a stored policy could not be loaded (it is then not in the cache), if it could not. */
  loadFailure(key: string): string | undefined;
}

/** Upstream's label for ConfigMaps that policies read often: Kyverno keeps them in an informer. */
const CACHE_LABEL = "cache.kyverno.io/enabled";

/** The one namespace to watch PolicyExceptions in, when exactly one without wildcards is accepted. */
function exceptionWatchNamespace(accepted: readonly string[]): string | undefined {
  const [only] = accepted;
  return accepted.length === 1 && only !== undefined && !/[*?]/.test(only) ? only : undefined;
}

function stringData(object: KubeObject | undefined): Record<string, string> | undefined {
  const data = object?.data;
  if (data === null || typeof data !== "object" || Array.isArray(data)) return object ? {} : undefined;
  return Object.fromEntries(
    Object.entries(data).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]),
  );
}

const sameLabels = (a: KubeObject | undefined, b: KubeObject | undefined): boolean =>
  JSON.stringify(a?.metadata?.labels ?? {}) === JSON.stringify(b?.metadata?.labels ?? {});

/** Logs an informer's failures once per outage (it retries with backoff) and its handlers' errors. */
function reportInformerErrors(informer: Informer<KubeObject>, kind: string, logger: Logger): void {
  let reported = false;
  informer.on("error", (e) => {
    if (e.source === "handler") logger.error({ kind, err: e.error }, "informer handler failed");
    else if (!reported) {
      reported = true;
      const { reason, message } = e.failure;
      logger.warn({ kind, reason, message, retryInMs: e.retryInMs }, "cannot watch");
    }
  });
  informer.on("synced", () => {
    reported = false;
  });
}

/** Informers of the state: its retry delays and clock, their failures logged. */
function watchFactory(options: ClusterStateOptions): WatchFactory {
  return (apiVersion, kind, scope = {}) => {
    const created = createInformer<KubeObject>({
      client: options.client,
      apiVersion,
      kind,
      ...scope,
      ...(options.informerDelay === undefined ? {} : { delay: options.informerDelay }),
      ...(options.clock === undefined ? {} : { clock: options.clock }),
    });
    reportInformerErrors(created, kind, options.logger);
    return created;
  };
}

/** Registers a feed's handlers on an informer. */
function feed(
  informer: Informer<KubeObject>,
  upsert: (o: KubeObject) => void,
  remove: (o: KubeObject) => void,
) {
  informer.on("add", upsert);
  informer.on("update", upsert);
  informer.on("delete", remove);
}

/** ClusterPolicies, Policies and (when enabled) PolicyExceptions into the policy feed. */
function watchClassicPolicies(
  watch: WatchFactory,
  policyFeed: PolicyFeed,
  exceptionNamespaces: readonly string[],
) {
  const clusterPolicies = watch("kyverno.io/v1", "ClusterPolicy");
  const policies = watch("kyverno.io/v1", "Policy");
  for (const watched of [clusterPolicies, policies])
    feed(watched, policyFeed.upsertPolicy, policyFeed.removePolicy);
  const informers = [clusterPolicies, policies];
  // With PolicyExceptions disabled (upstream's default) they are not even watched.
  if (exceptionNamespaces.length > 0) {
    const namespace = exceptionWatchNamespace(exceptionNamespaces);
    const exceptions = watch("kyverno.io/v2", "PolicyException", namespace ? { namespace } : {});
    feed(exceptions, policyFeed.upsertException, policyFeed.removeException);
    informers.push(exceptions);
  }
  return {
    informers,
    /** The stored object of a classic policy key (`name` or `namespace/name`). */
    policyObject(key: string): KubeObject | undefined {
      const slash = key.indexOf("/");
      return slash < 0
        ? clusterPolicies.get(undefined, key)
        : policies.get(key.slice(0, slash), key.slice(slash + 1));
    },
  };
}

/** Namespaces, announced when they come, go or their labels change. */
function watchNamespaces(watch: WatchFactory, fanout: ChangeFanout): Informer<KubeObject> {
  const namespaces = watch("v1", "Namespace");
  const changed = (o: KubeObject): void =>
    fanout.emit({ type: "namespace", namespace: o.metadata?.name ?? "" });
  namespaces.on("add", changed);
  namespaces.on("update", (o, old) => {
    if (!sameLabels(o, old)) changed(o);
  });
  namespaces.on("delete", changed);
  return namespaces;
}

/** Kyverno's ConfigMap, parsed on each change (its problems logged); the chart's defaults while absent. */
function watchKyvernoConfig(
  watch: WatchFactory,
  ref: { namespace: string; name: string },
  logger: Logger,
  changed: () => void,
) {
  let config = defaultKyvernoConfig();
  const informer = watch("v1", "ConfigMap", {
    namespace: ref.namespace,
    fieldSelector: `metadata.name=${ref.name}`,
  });
  const read = (): void => {
    const data = stringData(informer.get(ref.namespace, ref.name));
    if (data === undefined) config = defaultKyvernoConfig();
    else {
      const parsed = parseKyvernoConfig(data);
      for (const problem of parsed.problems) logger.warn({ configMap: ref.name }, problem);
      config = parsed.config;
    }
    changed();
  };
  feed(informer, read, read);
  return { informer, config: () => config };
}

/** The CEL feed and informers, when the controller has a CEL policy store. */
function watchCelPolicies(
  options: ClusterStateOptions,
  watch: WatchFactory,
  shared: { accepts: (namespace: string) => boolean; nextRevision: () => number; fanout: ChangeFanout },
) {
  if (options.celPolicies === undefined) return undefined;
  const celFeed = createCelFeed({
    store: options.celPolicies,
    logger: options.logger,
    acceptsExceptionsFrom: shared.accepts,
    nextRevision: shared.nextRevision,
    emit: shared.fanout.emit,
  });
  const informers: CelWatch = createCelWatch({
    client: options.client,
    logger: options.logger,
    feed: celFeed,
    watch,
    kinds: options.celKinds ?? CEL_POLICY_KINDS,
    exceptions:
      options.exceptionNamespaces.length > 0
        ? { namespace: exceptionWatchNamespace(options.exceptionNamespaces) }
        : false,
    ...(options.crdDelay === undefined ? {} : { crdDelay: options.crdDelay }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
  return { feed: celFeed, informers };
}

/** Creates the state (nothing is read until `start`). */
export function createClusterState(options: ClusterStateOptions): ClusterState {
  const { client, cache, logger } = options;
  const watch = watchFactory(options);
  const fanout = createChangeFanout(logger);
  let revision = 0;
  const nextRevision = (): number => ++revision;
  const accepts = (ns: string): boolean => options.exceptionNamespaces.some((p) => matchWildcard(p, ns));

  const policyFeed =
    cache === undefined
      ? undefined
      : createPolicyFeed({ cache, logger, acceptsExceptionsFrom: accepts, nextRevision, emit: fanout.emit });
  const classic =
    policyFeed === undefined
      ? undefined
      : watchClassicPolicies(watch, policyFeed, options.exceptionNamespaces);
  const cel = watchCelPolicies(options, watch, { accepts, nextRevision, fanout });
  const namespaces = watchNamespaces(watch, fanout);
  const kyvernoConfig =
    options.kyvernoConfigMap === undefined
      ? undefined
      : watchKyvernoConfig(watch, options.kyvernoConfigMap, logger, () => {
          revision++;
          fanout.emit({ type: "config" });
        });
  const contextConfigMaps = options.cachedConfigMaps
    ? watch("v1", "ConfigMap", { labelSelector: `${CACHE_LABEL}=true` })
    : undefined;
  const waitedFor = [
    ...(classic?.informers ?? []),
    namespaces,
    ...(kyvernoConfig ? [kyvernoConfig.informer] : []),
  ];
  const defaults = defaultKyvernoConfig();

  return {
    async start() {
      // Readiness does not wait for the cached ConfigMaps: until they are listed, policies read
      // them from the API server.
      void contextConfigMaps?.start();
      await Promise.all([...waitedFor.map((i) => i.start()), cel?.informers.start()]);
    },
    async stop() {
      await Promise.all([
        ...[...waitedFor, ...(contextConfigMaps ? [contextConfigMaps] : [])].map((i) => i.stop()),
        cel?.informers.stop(),
      ]);
    },
    synced: () => waitedFor.every((i) => i.hasSynced()) && (cel?.informers.synced() ?? true),
    subscribe: fanout.subscribe,
    kinds: createKindResolver({ client }),
    config: () => kyvernoConfig?.config() ?? defaults,
    namespaceLabels: (name) => namespaces.get(undefined, name)?.metadata?.labels,
    cachedConfigMap: (namespace, name) => contextConfigMaps?.get(namespace, name),
    revision: () => revision,
    policyRevision: (key) => policyFeed?.policyRevision(key) ?? cel?.feed.policyRevision(key),
    policyKeys: () => [...(policyFeed?.policyKeys() ?? []), ...(cel?.feed.policyKeys() ?? [])],
    celKindSynced: (kind) => cel === undefined || cel.informers.kindSynced(kind),
    policyObject(key) {
      const celObject = cel === undefined ? null : cel.informers.policyObject(key);
      return celObject !== null ? celObject : classic?.policyObject(key);
    },
    loadFailure: (key) => policyFeed?.loadFailure(key) ?? cel?.feed.loadFailure(key),
  };
}
