/**
 * The cluster state every reconcile reads besides the resource itself: ClusterPolicies and Policies
 * (loaded, compiled once into the shared policy cache), PolicyExceptions from accepted namespaces, and
 * Namespace labels for `namespaceSelector`. Changes are reported so the controller can requeue.
 */
import {
  type JsonValue,
  type KubeObject,
  loadPolicy,
  loadPolicyException,
  type PolicyException,
} from "@kyverno-ts/api";
import { matchWildcard } from "@kyverno-ts/engine";
import { createInformer, type Informer, type KubeClient } from "@kyverno-ts/kube";
import type { Logger } from "../../logger.js";
import type { CachedPolicy, PolicyCache } from "../../policycache/policy-cache.js";

/** Options of `createPolicySources`. */
export interface PolicySourcesOptions {
  client: KubeClient;
  cache: PolicyCache;
  logger: Logger;
  /** Namespaces PolicyExceptions are accepted from (wildcards); others are ignored; none: not watched. */
  exceptionNamespaces: readonly string[];
  /** A policy was added, changed or removed (`before`/`after` undefined when absent or not ready). */
  onPolicy: (key: string, before: CachedPolicy | undefined, after: CachedPolicy | undefined) => void;
  /** A PolicyException was added, changed or removed: the policy names it applies to (wildcards). */
  onException: (policyNames: readonly string[]) => void;
  /** A namespace's labels changed (or it appeared or went). */
  onNamespace: (namespace: string) => void;
  delay?: (attempt: number) => number;
}

/** The informers behind the policy cache; see `createPolicySources`. */
export interface PolicySources {
  /** Starts the informers; resolves once all have synced. */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Labels of a namespace, from the cache. */
  namespaceLabels(namespace: string): Record<string, string> | undefined;
}

type Kind = "ClusterPolicy" | "Policy" | "PolicyException" | "Namespace";

const SOURCES: ReadonlyArray<{ apiVersion: string; kind: Kind }> = [
  { apiVersion: "kyverno.io/v1", kind: "ClusterPolicy" },
  { apiVersion: "kyverno.io/v1", kind: "Policy" },
  { apiVersion: "kyverno.io/v2", kind: "PolicyException" },
  { apiVersion: "v1", kind: "Namespace" },
];

function objectKey(o: KubeObject): string {
  const ns = o.metadata?.namespace;
  return typeof ns === "string" && ns !== ""
    ? `${ns}/${o.metadata?.name ?? ""}`
    : `${o.metadata?.name ?? ""}`;
}

/** Strips what the API server adds and the loaders do not accept (`status`, server-set metadata). */
function asDocument(o: KubeObject): JsonValue {
  const { status: _status, ...rest } = o as Record<string, JsonValue>;
  const meta = (o.metadata ?? {}) as Record<string, JsonValue>;
  const metadata: Record<string, JsonValue> = {};
  for (const field of ["name", "namespace", "labels", "annotations", "uid", "resourceVersion"]) {
    const value = meta[field];
    if (value !== undefined) metadata[field] = value;
  }
  return { ...rest, metadata };
}

function sameLabels(a: KubeObject | undefined, b: KubeObject | undefined): boolean {
  return JSON.stringify(a?.metadata?.labels ?? {}) === JSON.stringify(b?.metadata?.labels ?? {});
}

/** Creates the sources; nothing is read before `start()`. */
export function createPolicySources(options: PolicySourcesOptions): PolicySources {
  const { client, cache, logger } = options;
  const informers = new Map<Kind, Informer<KubeObject>>();
  const accepted = (ns: string): boolean => options.exceptionNamespaces.some((p) => matchWildcard(p, ns));

  const setPolicy = (o: KubeObject, kind: "ClusterPolicy" | "Policy"): void => {
    const key = objectKey(o);
    const before = cache.get(key);
    const loaded = loadPolicy(asDocument(o), { file: `${kind} ${key}` });
    if (!loaded.ok) {
      cache.delete(key);
      logger.error(
        { policy: key, problems: loaded.errors.map((e) => `${e.path}: ${e.message}`) },
        "invalid policy",
      );
    } else {
      const status = cache.set(loaded.value);
      if (!status.ready) logger.error({ policy: key, message: status.message }, "policy not ready");
    }
    options.onPolicy(key, before, cache.get(key));
  };

  const deletePolicy = (o: KubeObject): void => {
    const key = objectKey(o);
    const before = cache.get(key);
    cache.delete(key);
    options.onPolicy(key, before, undefined);
  };

  const namesOf = (e: PolicyException | undefined): string[] =>
    (e?.spec.exceptions ?? []).map((x) => x.policyName);

  const exceptions = new Map<string, PolicyException>();
  const setException = (o: KubeObject): void => {
    const key = objectKey(o);
    const before = exceptions.get(key);
    const ns = typeof o.metadata?.namespace === "string" ? o.metadata.namespace : "";
    const loaded = accepted(ns)
      ? loadPolicyException(asDocument(o), { file: `PolicyException ${key}` })
      : undefined;
    if (loaded?.ok === true) {
      exceptions.set(key, loaded.value);
      cache.setException(loaded.value);
    } else {
      exceptions.delete(key);
      cache.deleteException(key);
      if (loaded !== undefined && !loaded.ok)
        logger.error({ exception: key, problems: loaded.errors.map((e) => e.message) }, "invalid exception");
    }
    options.onException([...namesOf(before), ...namesOf(exceptions.get(key))]);
  };
  const deleteException = (o: KubeObject): void => {
    const key = objectKey(o);
    const before = exceptions.get(key);
    exceptions.delete(key);
    cache.deleteException(key);
    options.onException(namesOf(before));
  };

  for (const source of SOURCES) {
    // No namespace accepted (PolicyExceptions disabled, upstream's default): not even watched.
    if (source.kind === "PolicyException" && options.exceptionNamespaces.length === 0) continue;
    const informer = createInformer<KubeObject>({
      client,
      apiVersion: source.apiVersion,
      kind: source.kind,
      ...(options.delay === undefined ? {} : { delay: options.delay }),
    });
    const kind = source.kind;
    if (kind === "ClusterPolicy" || kind === "Policy") {
      informer.on("add", (o) => setPolicy(o, kind));
      informer.on("update", (o) => setPolicy(o, kind));
      informer.on("delete", deletePolicy);
    } else if (kind === "PolicyException") {
      informer.on("add", setException);
      informer.on("update", setException);
      informer.on("delete", deleteException);
    } else {
      informer.on("add", (o) => options.onNamespace(objectKey(o)));
      informer.on("update", (o, old) => {
        if (!sameLabels(o, old)) options.onNamespace(objectKey(o));
      });
      informer.on("delete", (o) => options.onNamespace(objectKey(o)));
    }
    let reported = false;
    informer.on("error", (e) => {
      if (e.source === "handler") logger.error({ kind, error: String(e.error) }, "event handler failed");
      else if (!reported) {
        reported = true;
        logger.warn({ kind, reason: e.failure.reason, message: e.failure.message }, "cannot watch");
      }
    });
    informer.on("synced", () => {
      reported = false;
    });
    informers.set(kind, informer);
  }

  return {
    async start() {
      await Promise.all([...informers.values()].map((i) => i.start()));
    },
    async stop() {
      await Promise.all([...informers.values()].map((i) => i.stop()));
    },
    namespaceLabels(namespace) {
      return informers.get("Namespace")?.get(undefined, namespace)?.metadata?.labels;
    },
  };
}
