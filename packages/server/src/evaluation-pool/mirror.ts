/**
 * Keeps an evaluation pool's workers in step with the main thread's policy cache: a cache whose
 * changes (policies and PolicyExceptions) are also sent to the pool, where each worker compiles them.
 */
import type { PolicyException } from "@kyverno-ts/api";
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
