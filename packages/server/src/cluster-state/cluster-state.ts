/**
 * The cluster state every controller reads besides the resources it works on, kept by informers in
 * one place: ClusterPolicies and Policies (compiled once into the policy cache), PolicyExceptions
 * (only when they are enabled, from the accepted namespaces), Namespace labels (for
 * `namespaceSelector`, never a request per evaluation), and optionally Kyverno's ConfigMap and the
 * ConfigMaps labelled `cache.kyverno.io/enabled` (context data). Changes reach subscribers as typed
 * `ClusterChange`s once the cache reflects them; kinds are resolved by the one `KindResolver`.
 */
import type { KubeObject } from "@kyverno-ts/api";
import { matchWildcard } from "@kyverno-ts/engine";
import { createInformer, type Informer, type KubeClient } from "@kyverno-ts/kube";
import {
  defaultKyvernoConfig,
  type KyvernoConfig,
  parseKyvernoConfig,
} from "../controllers/admission/filters.js";
import type { Logger } from "../logger.js";
import type { CelPolicyStore } from "../policycache/cel-policy-store.js";
import type { PolicyCache } from "../policycache/policy-cache.js";
import { CEL_POLICY_API_VERSION, CEL_POLICY_KINDS, celPolicyObjectKey, createCelFeed } from "./cel-feed.js";
import { type ClusterListener, createChangeFanout } from "./changes.js";
import { createKindResolver, type KindResolver } from "./kinds.js";
import { createPolicyFeed } from "./policy-feed.js";
import { createServedKinds } from "./served-kinds.js";

/** Options of `createClusterState`. */
export interface ClusterStateOptions {
  client: KubeClient;
  /** The cache policies and exceptions are loaded into (its engine compiles them). */
  cache: PolicyCache;
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
   * Where the `policies.kyverno.io` kinds are compiled; when given, each kind whose CRD the server
   * serves is watched (and `start` waits for it), with the CEL PolicyExceptions when exceptions are on;
   * a kind whose CRD is installed later is watched from then on (`synced` does not wait for it).
   */
  celPolicies?: CelPolicyStore;
  /**
   * Delays between looks at `policies.kyverno.io` kinds whose CRD is not installed yet (default
   * `SERVED_KINDS_BACKOFF`: within about 15 s of the CRD they are watched, without a restart).
   */
  crdDelay?: (attempt: number) => number;
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
  /** Kinds: webhook rules, informers and admission requests ask here. */
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

/** Creates the state (nothing is read until `start`). */
export function createClusterState(options: ClusterStateOptions): ClusterState {
  const { client, cache, logger } = options;
  const informer = (
    apiVersion: string,
    kind: string,
    scope: { namespace?: string; fieldSelector?: string; labelSelector?: string } = {},
  ): Informer<KubeObject> => {
    const created = createInformer<KubeObject>({
      client,
      apiVersion,
      kind,
      ...scope,
      ...(options.informerDelay === undefined ? {} : { delay: options.informerDelay }),
    });
    reportInformerErrors(created, kind, logger);
    return created;
  };
  const fanout = createChangeFanout(logger);
  let revision = 0;
  let config = defaultKyvernoConfig();
  const feed = createPolicyFeed({
    cache,
    logger,
    acceptsExceptionsFrom: (ns) => options.exceptionNamespaces.some((p) => matchWildcard(p, ns)),
    nextRevision: () => ++revision,
    emit: fanout.emit,
  });

  const celStore = options.celPolicies;
  const celFeed = celStore
    ? createCelFeed({
        store: celStore,
        logger,
        acceptsExceptionsFrom: (ns) => options.exceptionNamespaces.some((p) => matchWildcard(p, ns)),
        nextRevision: () => ++revision,
        emit: fanout.emit,
      })
    : undefined;
  /** The CEL informers by kind, created for the kinds the server serves (at `start` or when their CRD comes). */
  const celInformers = new Map<string, Informer<KubeObject>>();
  /** Those created at `start`, which `start` and `synced` wait for. */
  const celAtStart: Informer<KubeObject>[] = [];
  let stopping = false;
  const watchCelKind = (kind: string, later: boolean): void => {
    if (celFeed === undefined || stopping || celInformers.has(kind)) return;
    const watched = informer(CEL_POLICY_API_VERSION, kind);
    if (kind === "PolicyException") {
      watched.on("add", celFeed.upsertException);
      watched.on("update", celFeed.upsertException);
      watched.on("delete", celFeed.removeException);
    } else {
      watched.on("add", celFeed.upsertPolicy);
      watched.on("update", celFeed.upsertPolicy);
      watched.on("delete", celFeed.removePolicy);
    }
    celInformers.set(kind, watched);
    if (!later) {
      celAtStart.push(watched);
      return;
    }
    // A CRD installed after start: its policies come in as the informer lists them, each a change.
    logger.info({ kind, apiVersion: CEL_POLICY_API_VERSION }, "CRD installed: watching the kind");
    void watched.start();
  };
  const celKinds =
    celFeed === undefined
      ? undefined
      : createServedKinds({
          client,
          apiVersion: CEL_POLICY_API_VERSION,
          kinds: [
            ...CEL_POLICY_KINDS,
            ...(options.exceptionNamespaces.length > 0 ? ["PolicyException"] : []),
          ],
          logger,
          onServed: watchCelKind,
          ...(options.crdDelay === undefined ? {} : { delay: options.crdDelay }),
        });
  const startCelInformers = async (): Promise<void> => {
    if (celKinds === undefined) return;
    await celKinds.start();
    await Promise.all(celAtStart.map((i) => i.start()));
  };

  const clusterPolicies = informer("kyverno.io/v1", "ClusterPolicy");
  const policies = informer("kyverno.io/v1", "Policy");
  for (const watched of [clusterPolicies, policies]) {
    watched.on("add", feed.upsertPolicy);
    watched.on("update", feed.upsertPolicy);
    watched.on("delete", feed.removePolicy);
  }
  const waitedFor = [clusterPolicies, policies];

  // With PolicyExceptions disabled (upstream's default) they are not even watched.
  if (options.exceptionNamespaces.length > 0) {
    const namespace = exceptionWatchNamespace(options.exceptionNamespaces);
    const exceptions = informer("kyverno.io/v2", "PolicyException", namespace ? { namespace } : {});
    exceptions.on("add", feed.upsertException);
    exceptions.on("update", feed.upsertException);
    exceptions.on("delete", feed.removeException);
    waitedFor.push(exceptions);
  }

  const namespaces = informer("v1", "Namespace");
  const namespaceChanged = (o: KubeObject): void =>
    fanout.emit({ type: "namespace", namespace: o.metadata?.name ?? "" });
  namespaces.on("add", namespaceChanged);
  namespaces.on("update", (o, old) => {
    if (!sameLabels(o, old)) namespaceChanged(o);
  });
  namespaces.on("delete", namespaceChanged);
  waitedFor.push(namespaces);

  const configMap = options.kyvernoConfigMap;
  if (configMap !== undefined) {
    const configMaps = informer("v1", "ConfigMap", {
      namespace: configMap.namespace,
      fieldSelector: `metadata.name=${configMap.name}`,
    });
    const readConfig = (): void => {
      const data = stringData(configMaps.get(configMap.namespace, configMap.name));
      if (data === undefined) config = defaultKyvernoConfig();
      else {
        const parsed = parseKyvernoConfig(data);
        for (const problem of parsed.problems) logger.warn({ configMap: configMap.name }, problem);
        config = parsed.config;
      }
      revision++;
      fanout.emit({ type: "config" });
    };
    configMaps.on("add", readConfig);
    configMaps.on("update", readConfig);
    configMaps.on("delete", readConfig);
    waitedFor.push(configMaps);
  }

  const contextConfigMaps = options.cachedConfigMaps
    ? informer("v1", "ConfigMap", { labelSelector: `${CACHE_LABEL}=true` })
    : undefined;

  /** The stored object of a CEL policy key; null when the key is not a CEL policy's. */
  const celPolicyObject = (key: string): KubeObject | undefined | null => {
    const [kind, ...rest] = key.split("/");
    const watched = kind === undefined ? undefined : celInformers.get(kind);
    if (watched === undefined || kind === "PolicyException") return null;
    const object =
      rest.length === 2 ? watched.get(rest[0], rest[1] ?? "") : watched.get(undefined, rest[0] ?? "");
    return object !== undefined && celPolicyObjectKey(object) === key ? object : undefined;
  };

  return {
    async start() {
      // Readiness does not wait for the cached ConfigMaps: until they are listed, policies read
      // them from the API server.
      void contextConfigMaps?.start();
      await Promise.all([...waitedFor.map((i) => i.start()), startCelInformers()]);
    },
    async stop() {
      stopping = true;
      celKinds?.stop();
      await Promise.all(
        [...waitedFor, ...celInformers.values(), ...(contextConfigMaps ? [contextConfigMaps] : [])].map((i) =>
          i.stop(),
        ),
      );
    },
    synced: () => waitedFor.every((i) => i.hasSynced()) && celAtStart.every((i) => i.hasSynced()),
    subscribe: fanout.subscribe,
    kinds: createKindResolver({ client }),
    config: () => config,
    namespaceLabels: (name) => namespaces.get(undefined, name)?.metadata?.labels,
    cachedConfigMap: (namespace, name) => contextConfigMaps?.get(namespace, name),
    revision: () => revision,
    policyRevision: (key) => feed.policyRevision(key) ?? celFeed?.policyRevision(key),
    policyKeys: () => [...feed.policyKeys(), ...(celFeed?.policyKeys() ?? [])],
    policyObject(key) {
      const cel = celPolicyObject(key);
      if (cel !== null) return cel;
      const slash = key.indexOf("/");
      return slash < 0
        ? clusterPolicies.get(undefined, key)
        : policies.get(key.slice(0, slash), key.slice(slash + 1));
    },
    loadFailure: (key) => feed.loadFailure(key) ?? celFeed?.loadFailure(key),
  };
}
