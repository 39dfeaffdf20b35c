/**
 * The work-queue key of a resource: `apiVersion|kind|namespace|name|uid`. The uid is part of the key, so
 * a resource deleted and created again under the same name is two items (the old report goes, a new
 * one comes), and a deleted resource can still be reconciled from its key alone.
 */
import type { ObjectReference } from "@kyverno-ts/api";

/** A resource as the reports controller identifies it; `namespace` is `""` for cluster-scoped kinds. */
export interface ResourceRef {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  uid: string;
}

const SEPARATOR = "|";

/** The queue key of a resource reference. */
export function resourceKey(ref: ResourceRef): string {
  return [ref.apiVersion, ref.kind, ref.namespace, ref.name, ref.uid].join(SEPARATOR);
}

/** Parses a key made by `resourceKey`; undefined for anything else. */
export function parseResourceKey(key: string): ResourceRef | undefined {
  const parts = key.split(SEPARATOR);
  if (parts.length !== 5) return undefined;
  const [apiVersion = "", kind = "", namespace = "", name = "", uid = ""] = parts;
  if (apiVersion === "" || kind === "" || name === "" || uid === "") return undefined;
  return { apiVersion, kind, namespace, name, uid };
}

/** What `refOfObject` reads of an object: its metadata (a decoded object or a cached compact one). */
export interface ObjectIdentity {
  readonly metadata?: { readonly name?: unknown; readonly namespace?: unknown; readonly uid?: unknown };
}

/** The reference of an object read from the API; undefined when it lacks a name or uid. */
export function refOfObject(
  object: ObjectIdentity,
  apiVersion: string,
  kind: string,
): ResourceRef | undefined {
  const meta = object.metadata;
  const name = meta?.name;
  const uid = meta?.uid;
  if (typeof name !== "string" || typeof uid !== "string" || name === "" || uid === "") return undefined;
  const namespace = typeof meta?.namespace === "string" ? meta.namespace : "";
  return { apiVersion, kind, namespace, name, uid };
}

/** The reference a report's `scope` points at; undefined when incomplete. */
export function refOfScope(scope: ObjectReference | undefined): ResourceRef | undefined {
  if (scope?.apiVersion === undefined || scope.kind === undefined) return undefined;
  if (scope.name === undefined || scope.uid === undefined) return undefined;
  return {
    apiVersion: scope.apiVersion,
    kind: scope.kind,
    namespace: scope.namespace ?? "",
    name: scope.name,
    uid: scope.uid,
  };
}

/** The `scope` of the report of a resource (no `namespace` for cluster-scoped ones). */
export function scopeOf(ref: ResourceRef): ObjectReference & { uid: string } {
  return {
    apiVersion: ref.apiVersion,
    kind: ref.kind,
    ...(ref.namespace === "" ? {} : { namespace: ref.namespace }),
    name: ref.name,
    uid: ref.uid,
  };
}
