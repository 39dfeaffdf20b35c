/**
 * Policies and PolicyExceptions from their informers into the policy cache. A policy is loaded and
 * compiled once per change of its spec or annotations; every load, failure and removal bumps the
 * revision and is announced as a `policy` change. Exceptions from namespaces that are not accepted
 * are left out of the cache, as if they did not exist.
 */
import type { KubeObject, PolicyException } from "@kyverno-ts/api";
import type { Logger } from "../logger.js";
import type { PolicyCache } from "../policycache/policy-cache.js";
import type { ClusterChange } from "./changes.js";
import { exceptionObjectKey, loadExceptionObject, loadPolicyObject, policyObjectKey } from "./documents.js";
import { createPolicyRecords } from "./policy-records.js";

/** Options of `createPolicyFeed`. */
export interface PolicyFeedOptions {
  cache: PolicyCache;
  logger: Logger;
  /** Whether PolicyExceptions of a namespace count. */
  acceptsExceptionsFrom: (namespace: string) => boolean;
  /** Bumps the state's revision and returns the new one. */
  nextRevision: () => number;
  emit: (change: ClusterChange) => void;
}

/** The informer handlers and what they recorded; see `createPolicyFeed`. */
export interface PolicyFeed {
  upsertPolicy(object: KubeObject): void;
  removePolicy(object: KubeObject): void;
  upsertException(object: KubeObject): void;
  removeException(object: KubeObject): void;
  /** The revision at which a policy last changed (undefined for unknown keys). */
  policyRevision(key: string): number | undefined;
  /** Keys of every stored policy, loadable or not, sorted. */
  policyKeys(): string[];
  /** Why a stored policy could not be loaded, if it could not. */
  loadFailure(key: string): string | undefined;
}

const namesOf = (exception: PolicyException | undefined): string[] =>
  (exception?.spec.exceptions ?? []).map((x) => x.policyName);

/** Creates the feed; the cluster state registers its handlers on the informers. */
export function createPolicyFeed(options: PolicyFeedOptions): PolicyFeed {
  const { cache, logger, emit } = options;
  const policies = createPolicyRecords({ logger, nextRevision: options.nextRevision });
  const exceptions = new Map<string, PolicyException>();

  const upsertPolicy = (object: KubeObject): void => {
    const key = policyObjectKey(object);
    const before = cache.get(key);
    if (!policies.upsert(key, object, () => loadPolicyObject(object), cache)) return;
    emit({ type: "policy", key, before, after: cache.get(key) });
  };

  const removePolicy = (object: KubeObject): void => {
    const key = policyObjectKey(object);
    const before = cache.get(key);
    policies.remove(key);
    cache.delete(key);
    emit({ type: "policy", key, before, after: undefined });
  };

  const upsertException = (object: KubeObject): void => {
    const key = exceptionObjectKey(object);
    const before = exceptions.get(key);
    const namespace = object.metadata?.namespace ?? "";
    const result = options.acceptsExceptionsFrom(namespace) ? loadExceptionObject(object) : undefined;
    if (result?.ok === true) {
      exceptions.set(key, result.value);
      cache.setException(result.value);
    } else {
      exceptions.delete(key);
      cache.deleteException(key);
      if (result !== undefined && !result.ok)
        logger.warn({ exception: key, reason: result.reason }, "policy exception cannot be loaded");
    }
    emit({ type: "exception", policyNames: [...namesOf(before), ...namesOf(exceptions.get(key))] });
  };

  const removeException = (object: KubeObject): void => {
    const key = exceptionObjectKey(object);
    const before = exceptions.get(key);
    exceptions.delete(key);
    cache.deleteException(key);
    emit({ type: "exception", policyNames: namesOf(before) });
  };

  return {
    upsertPolicy,
    removePolicy,
    upsertException,
    removeException,
    policyRevision: policies.revision,
    policyKeys: policies.keys,
    loadFailure: policies.failure,
  };
}
