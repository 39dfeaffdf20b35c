/**
 * The cluster feeding the policy cache: informers on ClusterPolicy, Policy, PolicyException, Kyverno's
 * ConfigMap and Namespaces. A policy is loaded and compiled once per change of its spec or annotations
 * (status writes do not recompile); namespace labels are answered from the Namespace cache, never with
 * a request per admission.
 */
import type { JsonValue, KubeObject } from "@kyverno-ts/api";
import { loadPolicy, loadPolicyException } from "@kyverno-ts/api";
import { createInformer, type Informer, type KubeClient } from "@kyverno-ts/kube";
import { defaultKyvernoConfig, type KyvernoConfig, parseKyvernoConfig } from "../admission/filters.js";
import type { Logger } from "../logger.js";
import { type ExceptionSettings, watchedExceptionNamespace } from "../policycache/exception-settings.js";
import { type PolicyCache, policyRefKey } from "../policycache/policy-cache.js";

/** What changed: one policy (by cache key), or Kyverno's ConfigMap. */
export type SourceChange = { type: "policy"; key: string } | { type: "config" };

/** Options of `createPolicySources`. */
export interface PolicySourcesOptions {
  client: KubeClient;
  cache: PolicyCache;
  /** Kyverno's namespace (where its ConfigMap lives). */
  namespace: string;
  /** The ConfigMap's name (upstream: `kyverno`). */
  configMapName: string;
  /** Whether PolicyExceptions are watched at all, and in which namespace (all when unset or `*`). */
  policyExceptions: ExceptionSettings;
  logger: Logger;
}

/** The informers and what they know; see `createPolicySources`. */
export interface PolicySources {
  /** Starts every informer; resolves once all have listed. */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** True once every informer has listed (the cache then reflects the cluster). */
  synced(): boolean;
  /** Kyverno's ConfigMap settings (the Helm chart defaults while there is no ConfigMap). */
  config(): KyvernoConfig;
  /** Labels of a namespace, from the cache. */
  namespaceLabels(namespace: string): Record<string, string> | undefined;
  /**
   * A ConfigMap labelled `cache.kyverno.io/enabled: "true"` (upstream's opt-in cache for policy
   * context data), from the cache; undefined for any other.
   */
  cachedConfigMap(namespace: string, name: string): KubeObject | undefined;
  /** Grows with every policy or configuration change. */
  revision(): number;
  /** The revision at which a policy last changed (undefined for unknown keys). */
  policyRevision(key: string): number | undefined;
  /** Keys of every stored policy, loadable or not, sorted. */
  policyKeys(): string[];
  /** The stored object of a policy. */
  policyObject(key: string): KubeObject | undefined;
  /** Why a stored policy could not be loaded (it is then not in the cache), if it could not. */
  loadFailure(key: string): string | undefined;
  /** Called after each change has reached the cache; returns an unsubscribe function. */
  onChange(listener: (change: SourceChange) => void): () => void;
}

const KYVERNO = "kyverno.io/v1";
/** Upstream's label for ConfigMaps that policies read often: Kyverno keeps them in an informer. */
const CACHE_LABEL = "cache.kyverno.io/enabled";

function keyOf(object: KubeObject): string {
  return policyRefKey({
    kind: object.kind ?? "",
    name: object.metadata?.name ?? "",
    namespace: object.metadata?.namespace,
  });
}

function fingerprint(object: KubeObject): string {
  return JSON.stringify([object.spec ?? null, object.metadata?.annotations ?? null]);
}

function stringData(object: KubeObject | undefined): Record<string, string> | undefined {
  const data = object?.data;
  if (data === null || typeof data !== "object" || Array.isArray(data)) return object ? {} : undefined;
  return Object.fromEntries(
    Object.entries(data).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]),
  );
}

/** Creates the sources (nothing is read until `start`). */
export function createPolicySources(options: PolicySourcesOptions): PolicySources {
  const { client, cache, logger } = options;
  const informer = (
    apiVersion: string,
    kind: string,
    extra: { namespace?: string; fieldSelector?: string; labelSelector?: string } = {},
  ) => createInformer<KubeObject>({ client, apiVersion, kind, ...extra });
  const clusterPolicies = informer(KYVERNO, "ClusterPolicy");
  const policies = informer(KYVERNO, "Policy");
  // With PolicyExceptions disabled (upstream's default) they are not even watched.
  const exceptionNs = watchedExceptionNamespace(options.policyExceptions);
  const exceptions = options.policyExceptions.enabled
    ? informer(
        "kyverno.io/v2",
        "PolicyException",
        exceptionNs === undefined ? {} : { namespace: exceptionNs },
      )
    : undefined;
  const configMaps = informer("v1", "ConfigMap", {
    namespace: options.namespace,
    fieldSelector: `metadata.name=${options.configMapName}`,
  });
  const namespaces = informer("v1", "Namespace");
  const contextConfigMaps = informer("v1", "ConfigMap", { labelSelector: `${CACHE_LABEL}=true` });
  const all: Informer<KubeObject>[] = [clusterPolicies, policies, configMaps, namespaces];
  if (exceptions !== undefined) all.push(exceptions);
  for (const inf of [...all, contextConfigMaps])
    inf.on("error", (e) => {
      if (e.source !== "handler")
        logger.warn(
          { source: e.source, reason: e.failure.message, retryInMs: e.retryInMs },
          "informer failed",
        );
      else logger.error({ err: e.error }, "informer handler failed");
    });

  const listeners = new Set<(change: SourceChange) => void>();
  const loaded = new Map<string, { fingerprint: string; revision: number; failure?: string }>();
  let revision = 0;
  let config = defaultKyvernoConfig();

  const emit = (change: SourceChange): void => {
    for (const listener of listeners) {
      try {
        listener(change);
      } catch (error) {
        logger.error({ err: error }, "policy change listener failed");
      }
    }
  };

  const upsertPolicy = (object: KubeObject): void => {
    const key = keyOf(object);
    const print = fingerprint(object);
    if (loaded.get(key)?.fingerprint === print) return;
    revision++;
    const result = loadPolicy(object as unknown as JsonValue, { file: `${object.kind}/${key}` });
    if (result.ok) {
      const status = cache.set(result.value);
      loaded.set(key, { fingerprint: print, revision });
      logger.info({ policy: key, ready: status.ready, message: status.message }, "policy loaded");
    } else {
      cache.delete(key);
      const failure = result.errors.map((e) => (e.path ? `${e.path}: ${e.message}` : e.message)).join("; ");
      loaded.set(key, { fingerprint: print, revision, failure });
      logger.warn({ policy: key, reason: failure }, "policy cannot be loaded");
    }
    emit({ type: "policy", key });
  };
  const removePolicy = (object: KubeObject): void => {
    const key = keyOf(object);
    revision++;
    loaded.delete(key);
    cache.delete(key);
    emit({ type: "policy", key });
  };
  for (const inf of [clusterPolicies, policies]) {
    inf.on("add", upsertPolicy);
    inf.on("update", upsertPolicy);
    inf.on("delete", removePolicy);
  }

  const exceptionKey = (o: KubeObject): string => `${o.metadata?.namespace ?? "default"}/${o.metadata?.name}`;
  const upsertException = (object: KubeObject): void => {
    const result = loadPolicyException(object as unknown as JsonValue, {
      file: `PolicyException/${exceptionKey(object)}`,
    });
    if (result.ok) cache.setException(result.value);
    else {
      cache.deleteException(exceptionKey(object));
      logger.warn({ exception: exceptionKey(object) }, "policy exception cannot be loaded");
    }
  };
  exceptions?.on("add", upsertException);
  exceptions?.on("update", upsertException);
  exceptions?.on("delete", (o) => void cache.deleteException(exceptionKey(o)));

  const readConfig = (): void => {
    const data = stringData(configMaps.get(options.namespace, options.configMapName));
    if (data === undefined) config = defaultKyvernoConfig();
    else {
      const parsed = parseKyvernoConfig(data);
      for (const problem of parsed.problems) logger.warn({ configMap: options.configMapName }, problem);
      config = parsed.config;
    }
    revision++;
    emit({ type: "config" });
  };
  configMaps.on("add", readConfig);
  configMaps.on("update", readConfig);
  configMaps.on("delete", readConfig);

  const objectOf = (key: string): KubeObject | undefined => {
    const slash = key.indexOf("/");
    return slash < 0
      ? clusterPolicies.get(undefined, key)
      : policies.get(key.slice(0, slash), key.slice(slash + 1));
  };

  return {
    async start() {
      // Readiness does not wait for the cached ConfigMaps: until they are listed, policies read
      // them from the API server.
      void contextConfigMaps.start();
      await Promise.all(all.map((i) => i.start()));
    },
    async stop() {
      await Promise.all([...all, contextConfigMaps].map((i) => i.stop()));
    },
    synced: () => all.every((i) => i.hasSynced()),
    config: () => config,
    namespaceLabels: (name) => namespaces.get(undefined, name)?.metadata?.labels,
    cachedConfigMap: (namespace, name) => contextConfigMaps.get(namespace, name),
    revision: () => revision,
    policyRevision: (key) => loaded.get(key)?.revision,
    policyKeys: () => [...loaded.keys()].sort(),
    policyObject: objectOf,
    loadFailure: (key) => loaded.get(key)?.failure,
    onChange(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
}
