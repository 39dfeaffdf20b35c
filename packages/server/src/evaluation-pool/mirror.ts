/**
 * Keeps an evaluation pool's workers in step with the main thread's policy cache and CEL policy
 * store: a cache (store) whose changes (policies and PolicyExceptions) are also sent to the pool,
 * where each worker compiles them.
 */
import type { PolicyException } from "@kyverno-ts/api";
import { type CelPolicyStore, celPolicyKey } from "../policycache/cel-policy-store.js";
import { type PolicyCache, policyKey } from "../policycache/policy-cache.js";
import type { EvaluationPool } from "./pool.js";

/** `cache` with every change forwarded to `pool` (reads go to `cache` alone). */
export function mirrorToPool(cache: PolicyCache, pool: EvaluationPool): PolicyCache {
  const exceptions = new Map<string, PolicyException>();
  const keyOf = (e: PolicyException): string => `${e.metadata.namespace ?? "default"}/${e.metadata.name}`;
  const sendExceptions = (): void => pool.setExceptions([...exceptions.values()]);
  return {
    ...cache,
    set(policy) {
      const status = cache.set(policy);
      pool.setPolicy(policyKey(policy), policy);
      return status;
    },
    delete(key) {
      const removed = cache.delete(key);
      pool.deletePolicy(key);
      return removed;
    },
    setExceptions(list) {
      cache.setExceptions(list);
      exceptions.clear();
      for (const e of list) exceptions.set(keyOf(e), e);
      sendExceptions();
    },
    setException(e) {
      cache.setException(e);
      exceptions.set(keyOf(e), e);
      sendExceptions();
    },
    deleteException(key) {
      const removed = cache.deleteException(key);
      if (exceptions.delete(key)) sendExceptions();
      return removed;
    },
  };
}

/** `store` (the CEL policies) with every change forwarded to `pool` (reads go to `store` alone). */
export function mirrorCelToPool(store: CelPolicyStore, pool: EvaluationPool): CelPolicyStore {
  return {
    ...store,
    set(policy) {
      const status = store.set(policy);
      const { name, namespace } = policy.metadata;
      pool.setCelPolicy(celPolicyKey({ kind: policy.kind, name, namespace }), policy);
      return status;
    },
    delete(key) {
      const removed = store.delete(key);
      pool.deleteCelPolicy(key);
      return removed;
    },
    setException(exception) {
      store.setException(exception);
      pool.setCelException(
        `${exception.metadata.namespace ?? "default"}/${exception.metadata.name}`,
        exception,
      );
    },
    deleteException(key) {
      const removed = store.deleteException(key);
      pool.deleteCelException(key);
      return removed;
    },
  };
}
