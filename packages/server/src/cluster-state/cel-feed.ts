/**
 * The `policies.kyverno.io` kinds from their informers into the CEL policy store: each policy is
 * loaded and compiled once per change of its spec or annotations (the leader's status writes do not
 * recompile it), CEL PolicyExceptions from accepted namespaces recompile the policies they name.
 * Every load, failure and removal bumps the revision and is announced as a `celPolicy` change.
 */
import { type CelPolicy, type KubeObject, loadCelPolicy, loadCelPolicyException } from "@kyverno-ts/api";
import type { Logger } from "../logger.js";
import { type CelPolicyStore, celPolicyKey } from "../policycache/cel-policy-store.js";
import type { ClusterChange } from "./changes.js";
import { asDocument, type DocumentLoad, exceptionObjectKey, loaded } from "./documents.js";
import { createPolicyRecords } from "./policy-records.js";

/** The API group and version the CEL kinds are watched under. */
export const CEL_POLICY_API_VERSION = "policies.kyverno.io/v1";

/** The policy kinds of `policies.kyverno.io`, as upstream serves them. */
export const CEL_POLICY_KINDS = [
  "ValidatingPolicy",
  "NamespacedValidatingPolicy",
  "MutatingPolicy",
  "NamespacedMutatingPolicy",
  "GeneratingPolicy",
  "NamespacedGeneratingPolicy",
  "DeletingPolicy",
  "NamespacedDeletingPolicy",
  "ImageValidatingPolicy",
  "NamespacedImageValidatingPolicy",
] as const;

/** One of `CEL_POLICY_KINDS`. */
export type CelPolicyKind = (typeof CEL_POLICY_KINDS)[number];

/** The key of a CEL policy object (see `celPolicyKey`). */
export function celPolicyObjectKey(object: KubeObject): string {
  return celPolicyKey({
    kind: object.kind ?? "",
    name: object.metadata?.name ?? "",
    namespace: object.metadata?.namespace,
  });
}

/** Loads a CEL policy object as the CLI loads a file. */
export function loadCelPolicyObject(object: KubeObject): DocumentLoad<CelPolicy> {
  return loaded(loadCelPolicy(asDocument(object), { file: celPolicyObjectKey(object) }));
}

/** Options of `createCelFeed`. */
export interface CelFeedOptions {
  store: CelPolicyStore;
  logger: Logger;
  acceptsExceptionsFrom: (namespace: string) => boolean;
  nextRevision: () => number;
  emit: (change: ClusterChange) => void;
}

/** The informer handlers and what they recorded. */
export interface CelFeed {
  upsertPolicy(object: KubeObject): void;
  removePolicy(object: KubeObject): void;
  upsertException(object: KubeObject): void;
  removeException(object: KubeObject): void;
  policyRevision(key: string): number | undefined;
  policyKeys(): string[];
  loadFailure(key: string): string | undefined;
}

/** Creates the feed; the cluster state registers its handlers on the CEL informers. */
export function createCelFeed(options: CelFeedOptions): CelFeed {
  const { store, logger, emit } = options;
  const records = createPolicyRecords({ logger, nextRevision: options.nextRevision });
  const exceptions = new Set<string>();

  return {
    upsertPolicy(object) {
      const key = celPolicyObjectKey(object);
      if (!records.upsert(key, object, () => loadCelPolicyObject(object), store)) return;
      emit({ type: "celPolicy", key });
    },
    removePolicy(object) {
      const key = celPolicyObjectKey(object);
      records.remove(key);
      store.delete(key);
      emit({ type: "celPolicy", key });
    },
    upsertException(object) {
      const key = exceptionObjectKey(object);
      const namespace = object.metadata?.namespace ?? "";
      const result = options.acceptsExceptionsFrom(namespace)
        ? loaded(loadCelPolicyException(asDocument(object), { file: `PolicyException ${key}` }))
        : undefined;
      options.nextRevision();
      if (result?.ok === true) {
        exceptions.add(key);
        store.setException(result.value);
      } else {
        exceptions.delete(key);
        store.deleteException(key);
        if (result !== undefined && !result.ok)
          logger.warn({ exception: key, reason: result.reason }, "policy exception cannot be loaded");
      }
      emit({ type: "celException", key });
    },
    removeException(object) {
      const key = exceptionObjectKey(object);
      options.nextRevision();
      exceptions.delete(key);
      store.deleteException(key);
      emit({ type: "celException", key });
    },
    policyRevision: records.revision,
    policyKeys: records.keys,
    loadFailure: records.failure,
  };
}
