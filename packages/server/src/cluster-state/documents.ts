/**
 * How a policy or PolicyException object read from the API server becomes what the loaders accept,
 * the same way for every controller: `status` and the server-set metadata are dropped, and a policy
 * is loaded again only when its spec or annotations change (the leader's status writes do not
 * recompile it).
 */
import {
  type JsonValue,
  type KubeObject,
  loadPolicy,
  loadPolicyException,
  type Policy,
  type PolicyException,
} from "@kyverno-ts/api";
import { policyRefKey } from "../policycache/policy-cache.js";

/** The key a policy object is cached under: `name`, or `namespace/name` for a Policy. */
export function policyObjectKey(object: KubeObject): string {
  return policyRefKey({
    kind: object.kind ?? "",
    name: object.metadata?.name ?? "",
    namespace: object.metadata?.namespace,
  });
}

/** The key of a PolicyException (always namespaced): `namespace/name`. */
export function exceptionObjectKey(object: KubeObject): string {
  return `${object.metadata?.namespace ?? "default"}/${object.metadata?.name ?? ""}`;
}

/** What must change for a policy to be loaded again: its spec and annotations. */
export function policyFingerprint(object: KubeObject): string {
  return JSON.stringify([object.spec ?? null, object.metadata?.annotations ?? null]);
}

/** The object without `status` and with only the metadata a document carries. */
export function asDocument(object: KubeObject): JsonValue {
  const { status: _status, ...rest } = object as Record<string, JsonValue>;
  const meta = (object.metadata ?? {}) as Record<string, JsonValue>;
  const metadata: Record<string, JsonValue> = {};
  for (const field of ["name", "namespace", "labels", "annotations", "uid", "resourceVersion"]) {
    const value = meta[field];
    if (value !== undefined) metadata[field] = value;
  }
  return { ...rest, metadata };
}

/** A loaded document, or why it cannot be loaded (every problem with its field path). */
export type DocumentLoad<T> = { ok: true; value: T } | { ok: false; reason: string };

export function loaded<T>(
  result: { ok: true; value: T } | { ok: false; errors: ReadonlyArray<{ path?: string; message: string }> },
): DocumentLoad<T> {
  if (result.ok) return { ok: true, value: result.value };
  const reason = result.errors.map((e) => (e.path ? `${e.path}: ${e.message}` : e.message)).join("; ");
  return { ok: false, reason };
}

/** Loads a ClusterPolicy or Policy object. */
export function loadPolicyObject(object: KubeObject): DocumentLoad<Policy> {
  return loaded(loadPolicy(asDocument(object), { file: `${object.kind} ${policyObjectKey(object)}` }));
}

/** Loads a PolicyException object. */
export function loadExceptionObject(object: KubeObject): DocumentLoad<PolicyException> {
  return loaded(
    loadPolicyException(asDocument(object), { file: `PolicyException ${exceptionObjectKey(object)}` }),
  );
}
