/** What the cluster state tells its subscribers, and how it fans a change out to them. */
import type { Logger } from "../logger.js";
import type { CachedPolicy } from "../policycache/policy-cache.js";

/**
 * One change, after it has reached the policy cache:
 * - `policy`: a ClusterPolicy or Policy was loaded, changed, failed to load or went; `before` and
 *   `after` are the cached (compiled, ready) policy, undefined when absent or not ready;
 * - `exception`: a PolicyException came, changed or went; `policyNames` are the names (wildcards) of
 *   the policies it named before and after;
 * - `namespace`: a Namespace appeared, went, or its labels changed;
 * - `config`: Kyverno's ConfigMap changed (or appeared or went);
 * - `celPolicy`: a `policies.kyverno.io` policy was loaded, changed, failed to load or went (`key`
 *   of `celPolicyKey`);
 * - `celException`: a `policies.kyverno.io` PolicyException came, changed or went (the policies it
 *   names were recompiled).
 */
export type ClusterChange =
  | { type: "policy"; key: string; before: CachedPolicy | undefined; after: CachedPolicy | undefined }
  | { type: "exception"; policyNames: readonly string[] }
  | { type: "namespace"; namespace: string }
  | { type: "config" }
  | { type: "celPolicy"; key: string }
  | { type: "celException"; key: string };

/** A subscriber of `ClusterState.subscribe`. */
export type ClusterListener = (change: ClusterChange) => void;

/** The subscribers of a cluster state; a failing one is logged and does not stop the others. */
export interface ChangeFanout {
  emit(change: ClusterChange): void;
  subscribe(listener: ClusterListener): () => void;
}

/** Creates an empty set of subscribers. */
export function createChangeFanout(logger: Logger): ChangeFanout {
  const listeners = new Set<ClusterListener>();
  return {
    emit(change) {
      for (const listener of listeners) {
        try {
          listener(change);
        } catch (error) {
          logger.error({ err: error, change: change.type }, "cluster state subscriber failed");
        }
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
}
