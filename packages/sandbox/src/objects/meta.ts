/** Readers and writers of `metadata` fields on plain JSON objects. */
import type { JsonObject, JsonValue } from "@kyverno-ts/api";
import { apiVersionOf, type ResourceType } from "../registry/types.js";

/** A JSON value as an object, or `undefined`. */
export function asObject(value: JsonValue | undefined): JsonObject | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? value : undefined;
}

/** The object elements of a JSON list (non-objects and non-lists give `[]`). */
export function asObjects(value: JsonValue | undefined): JsonObject[] {
  if (!Array.isArray(value)) return [];
  const out: JsonObject[] = [];
  for (const v of value) {
    const o = asObject(v);
    if (o !== undefined) out.push(o);
  }
  return out;
}

/** The metadata map of an object (a fresh empty map when absent). */
export function metadataOf(object: JsonObject): JsonObject {
  return asObject(object.metadata) ?? {};
}

/** A string metadata field (`""` when absent). */
export function metaString(object: JsonObject, field: string): string {
  const value = metadataOf(object)[field];
  return typeof value === "string" ? value : "";
}

/** `metadata.labels` as a string map. */
export function labelsOf(object: JsonObject): Record<string, string> {
  const labels = asObject(metadataOf(object).labels) ?? {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(labels)) if (typeof v === "string") out[k] = v;
  return out;
}

/** `metadata.finalizers` as strings. */
export function finalizersOf(object: JsonObject): string[] {
  const list = metadataOf(object).finalizers;
  return Array.isArray(list) ? list.filter((f): f is string => typeof f === "string") : [];
}

/** `metadata.ownerReferences` as objects. */
export function ownerReferencesOf(object: JsonObject): JsonObject[] {
  return asObjects(metadataOf(object).ownerReferences);
}

/** A deep copy of `object` with `metadata` replaced by `update(metadata)`. */
export function withMetadata(object: JsonObject, update: (metadata: JsonObject) => JsonObject): JsonObject {
  return { ...structuredClone(object), metadata: update(structuredClone(metadataOf(object))) };
}

/**
 * The object as served at `resource`'s version: the resource's field conversion when it has one, else
 * only `apiVersion` changes (conversion `None`).
 */
export function toServedVersion(object: JsonObject, resource: ResourceType): JsonObject {
  const apiVersion = apiVersionOf(resource);
  if (object.apiVersion === apiVersion) return object;
  return resource.conversion ? resource.conversion.toServed(object) : { ...object, apiVersion };
}

/** The object as stored (at the resource's storage version). */
export function toStorageVersion(object: JsonObject, resource: ResourceType): JsonObject {
  if (object.apiVersion === resource.storageVersion) return object;
  return resource.conversion
    ? resource.conversion.toStorage(object)
    : { ...object, apiVersion: resource.storageVersion };
}

/** RFC 3339 timestamp with second precision, as Kubernetes writes `metav1.Time`. */
export function timestamp(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}
