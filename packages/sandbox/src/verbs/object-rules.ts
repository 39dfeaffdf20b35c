/**
 * What the server sets or keeps on writes, per kind: system metadata, status reset and status
 * subresource isolation, generation bumps, the few defaults our components rely on, and the stored
 * form of built-ins (`defaults/stored-form.ts`).
 */
import { isDeepStrictEqual } from "node:util";
import type { JsonObject } from "@kyverno-ts/api";
import { toStoredForm } from "../defaults/stored-form.js";
import { asObject, finalizersOf, metadataOf, metaString, timestamp } from "../objects/meta.js";
import type { ResourceType } from "../registry/types.js";
import { crdStatus } from "./crd-rules.js";

const SYSTEM_FIELDS = [
  "uid",
  "creationTimestamp",
  "deletionTimestamp",
  "deletionGracePeriodSeconds",
  "generation",
];

/** Fills system metadata and defaults of a new object (name already resolved). */
export function prepareCreate(
  resource: ResourceType,
  object: JsonObject,
  uid: string,
  now: Date,
): JsonObject {
  const meta: JsonObject = { ...metadataOf(object) };
  delete meta.resourceVersion;
  delete meta.selfLink;
  delete meta.managedFields;
  delete meta.deletionTimestamp;
  delete meta.deletionGracePeriodSeconds;
  meta.uid = uid;
  meta.creationTimestamp = timestamp(now);
  if (resource.generation === "none") delete meta.generation;
  else meta.generation = 1;
  if (!resource.namespaced) delete meta.namespace;
  const out: JsonObject = { ...object, metadata: meta };
  if (resource.subresources.includes("status")) resetStatus(resource, out);
  applyDefaults(resource, out);
  return toStoredForm(resource, out);
}

function resetStatus(resource: ResourceType, object: JsonObject): void {
  if (resource.custom) {
    delete object.status;
    return;
  }
  switch (resource.kind) {
    case "Pod":
      object.status = { phase: "Pending" };
      return;
    case "Namespace":
      object.status = { phase: "Active" };
      return;
    default:
      delete object.status;
  }
}

function applyDefaults(resource: ResourceType, object: JsonObject): void {
  if (resource.custom) return;
  const meta = metadataOf(object);
  if (resource.kind === "Namespace" && resource.group === "") {
    meta.labels = {
      ...(asObject(meta.labels) ?? {}),
      "kubernetes.io/metadata.name": metaString(object, "name"),
    };
    const spec = asObject(object.spec) ?? {};
    if (!Array.isArray(spec.finalizers)) object.spec = { ...spec, finalizers: ["kubernetes"] };
  }
  if (resource.kind === "CustomResourceDefinition" && resource.group === "apiextensions.k8s.io") {
    defaultCrdSpec(object);
    object.status = crdStatus(object);
  }
  if (resource.kind === "Secret" && resource.group === "") {
    if (object.type === undefined || object.type === "") object.type = "Opaque";
    foldStringData(object);
  }
}

/**
 * kube-apiserver's CRD defaults: `names.singular` (the lower-case kind) and `names.listKind`
 * (`<Kind>List`) when empty, and `conversion.strategy: None` when no conversion is set.
 */
function defaultCrdSpec(crd: JsonObject): void {
  const spec = asObject(crd.spec);
  if (spec === undefined) return;
  const names = asObject(spec.names);
  if (names !== undefined && typeof names.kind === "string" && names.kind !== "") {
    const filled: JsonObject = { ...names };
    if (typeof names.singular !== "string" || names.singular === "")
      filled.singular = names.kind.toLowerCase();
    if (typeof names.listKind !== "string" || names.listKind === "") filled.listKind = `${names.kind}List`;
    spec.names = filled;
  }
  if (asObject(spec.conversion) === undefined) spec.conversion = { strategy: "None" };
  crd.spec = spec;
}

/** As kube-apiserver: a Secret's write-only `stringData` is merged into `data` (base64) and not stored. */
function foldStringData(secret: JsonObject): void {
  const stringData = asObject(secret.stringData);
  delete secret.stringData;
  if (stringData === undefined) return;
  const data: JsonObject = { ...(asObject(secret.data) ?? {}) };
  for (const [key, value] of Object.entries(stringData))
    if (typeof value === "string") data[key] = Buffer.from(value, "utf8").toString("base64");
  secret.data = data;
}

/**
 * The object to store for an update: system fields kept from `old`, status kept from `old` on the main
 * resource (status subresource) or everything but status kept on `/status`, generation bumped.
 */
export function prepareUpdate(
  resource: ResourceType,
  subresource: string,
  old: JsonObject,
  incoming: JsonObject,
): JsonObject {
  let next: JsonObject;
  if (subresource === "finalize") {
    const finalizers = asObject(incoming.spec)?.finalizers;
    next = { ...old, spec: { ...(asObject(old.spec) ?? {}), finalizers: finalizers ?? [] } };
  } else if (subresource === "status") {
    next = { ...old };
    if (incoming.status === undefined) delete next.status;
    else next.status = incoming.status;
  } else if (subresource === "approval") {
    // `kubectl certificate approve|deny`: only status.conditions change, as the approval subresource.
    const conditions = asObject(incoming.status)?.conditions;
    const status: JsonObject = { ...(asObject(old.status) ?? {}) };
    if (conditions === undefined) delete status.conditions;
    else status.conditions = conditions;
    next = { ...old, status };
  } else if (subresource === "ephemeralcontainers") {
    // `kubectl debug`: only spec.ephemeralContainers changes, as kube-apiserver's subresource does.
    const ephemeral = asObject(incoming.spec)?.ephemeralContainers;
    const spec: JsonObject = { ...(asObject(old.spec) ?? {}) };
    if (ephemeral === undefined) delete spec.ephemeralContainers;
    else spec.ephemeralContainers = ephemeral;
    next = { ...old, spec };
  } else {
    next = { ...incoming };
    if (resource.subresources.includes("status") && resource.kind !== "CustomResourceDefinition") {
      if (old.status === undefined) delete next.status;
      else next.status = old.status;
    }
  }
  const oldMeta = metadataOf(old);
  const meta: JsonObject = { ...metadataOf(next) };
  for (const f of SYSTEM_FIELDS) {
    const v = oldMeta[f];
    if (v === undefined) delete meta[f];
    else meta[f] = v;
  }
  meta.name = oldMeta.name ?? "";
  if (resource.namespaced) meta.namespace = oldMeta.namespace ?? "";
  else delete meta.namespace;
  delete meta.managedFields;
  delete meta.selfLink;
  if (oldMeta.generateName === undefined) delete meta.generateName;
  else meta.generateName = oldMeta.generateName;
  next = { ...next, metadata: meta };
  if (generationChanged(resource, old, next))
    meta.generation = (typeof oldMeta.generation === "number" ? oldMeta.generation : 0) + 1;
  applyDefaults(resource, next);
  if (resource.kind === "CustomResourceDefinition" && subresource === "") next.status = crdStatus(next);
  return toStoredForm(resource, next);
}

function generationChanged(resource: ResourceType, old: JsonObject, next: JsonObject): boolean {
  switch (resource.generation) {
    case "none":
      return false;
    case "spec":
      return !isDeepStrictEqual(old.spec, next.spec);
    case "nonMetadata": {
      const strip = (o: JsonObject): JsonObject => {
        const { metadata: _m, status, ...rest } = o;
        return resource.subresources.includes("status") ? rest : { ...rest, status: status ?? null };
      };
      return !isDeepStrictEqual(strip(old), strip(next));
    }
  }
}

/** Whether a deleted object can go: no `metadata.finalizers` (nor namespace `spec.finalizers`) left. */
export function isFinalized(object: JsonObject): boolean {
  if (finalizersOf(object).length > 0) return false;
  if (object.kind !== "Namespace" || object.apiVersion !== "v1") return true;
  const specFinalizers = asObject(object.spec)?.finalizers;
  return !Array.isArray(specFinalizers) || specFinalizers.length === 0;
}

/** Whether an update changes nothing (the real server then skips the write and keeps the version). */
export function isNoop(old: JsonObject, next: JsonObject): boolean {
  const strip = (o: JsonObject): JsonObject => ({
    ...o,
    metadata: { ...metadataOf(o), resourceVersion: "" },
  });
  return isDeepStrictEqual(strip(old), strip(next));
}
