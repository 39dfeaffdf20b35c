/**
 * Generic object validation run before every write: metadata (name, generateName, labels, annotations,
 * namespace), the kind-specific data limits, and the 1.5 MiB storage limit.
 */
import type { JsonObject } from "@kyverno-ts/api";
import { validateEventV1 } from "../events/events-v1.js";
import {
  ApiError,
  badRequest,
  fieldInvalid,
  fieldRequired,
  invalid,
  type StatusCause,
} from "../http/status.js";
import { asObject, metadataOf, metaString } from "../objects/meta.js";
import type { ResourceType } from "../registry/types.js";
import {
  dns1035Label,
  dns1123Label,
  dns1123Subdomain,
  labelValue,
  pathSegmentName,
  qualifiedName,
} from "./names.js";

/** etcd's default request limit, which bounds the size of one stored object. */
export const MAX_OBJECT_BYTES = 1.5 * 1024 * 1024;

const MAX_ANNOTATIONS_BYTES = 256 * 1024;
const MAX_CONFIG_DATA_BYTES = 1024 * 1024;

function nameErrors(rule: ResourceType["nameRule"], name: string): string[] {
  switch (rule) {
    case "label":
      return dns1123Label(name);
    case "label1035":
      return dns1035Label(name);
    case "path":
      return pathSegmentName(name);
    case "subdomain":
      return dns1123Subdomain(name);
  }
}

function goType(value: unknown): string {
  if (typeof value === "boolean") return "bool";
  if (typeof value === "number") return "number";
  if (Array.isArray(value)) return "array";
  return typeof value === "object" ? "object" : typeof value;
}

/**
 * Labels and annotations are `map[string]string` in Go: a non-string value fails decoding before any
 * validation, with a 400 BadRequest as the real server's JSON decoder reports it.
 */
function checkStringMaps(meta: JsonObject): void {
  for (const field of ["labels", "annotations"] as const) {
    for (const value of Object.values(asObject(meta[field]) ?? {})) {
      if (typeof value !== "string" && value !== null)
        throw badRequest(
          `json: cannot unmarshal ${goType(value)} into Go struct field ObjectMeta.metadata.${field} of type string`,
        );
    }
  }
}

/** Validates metadata; throws a 400 for undecodable metadata, else a 422 Invalid listing every problem. */
export function validateObject(resource: ResourceType, object: JsonObject): void {
  checkStringMaps(metadataOf(object));
  const causes: StatusCause[] = [];
  const name = metaString(object, "name");
  const meta = metadataOf(object);
  if (name === "") {
    causes.push(fieldRequired("metadata.name", "name or generateName is required"));
  } else {
    for (const why of nameErrors(resource.nameRule, name))
      causes.push(fieldInvalid("metadata.name", name, why));
  }
  if (resource.namespaced && metaString(object, "namespace") === "")
    causes.push(fieldRequired("metadata.namespace", ""));
  const labels = asObject(meta.labels) ?? {};
  for (const [key, value] of Object.entries(labels)) {
    for (const why of qualifiedName(key)) causes.push(fieldInvalid("metadata.labels", key, why));
    if (typeof value !== "string") causes.push(fieldInvalid(`metadata.labels`, value, "must be a string"));
    else for (const why of labelValue(value)) causes.push(fieldInvalid("metadata.labels", value, why));
  }
  const annotations = asObject(meta.annotations) ?? {};
  let annotationBytes = 0;
  for (const [key, value] of Object.entries(annotations)) {
    for (const why of qualifiedName(key.toLowerCase()))
      causes.push(fieldInvalid("metadata.annotations", key, why));
    annotationBytes += key.length + (typeof value === "string" ? value.length : 0);
  }
  if (annotationBytes > MAX_ANNOTATIONS_BYTES)
    causes.push({
      reason: "FieldValueTooLong",
      message: `Too long: must have at most ${MAX_ANNOTATIONS_BYTES} bytes`,
      field: "metadata.annotations",
    });
  if (!resource.custom && (resource.kind === "ConfigMap" || resource.kind === "Secret")) {
    causes.push(...dataCauses(resource.kind, object));
  }
  if (resource.group === "events.k8s.io" && resource.kind === "Event")
    // Not stored yet (no resourceVersion): a create.
    causes.push(...validateEventV1(object, metaString(object, "resourceVersion") === ""));
  if (causes.length > 0)
    throw invalid(resource.custom ? resource.group : resource.group, resource.kind, name, causes);
}

function dataCauses(kind: string, object: JsonObject): StatusCause[] {
  let total = 0;
  const causes: StatusCause[] = [];
  for (const field of kind === "Secret" ? ["data", "stringData"] : ["data", "binaryData"]) {
    for (const [key, value] of Object.entries(asObject(object[field]) ?? {})) {
      if (!/^[-._a-zA-Z0-9]+$/.test(key) || key.length > 253)
        causes.push(
          fieldInvalid(
            `${field}[${key}]`,
            key,
            "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
          ),
        );
      total += typeof value === "string" ? dataBytes(kind, field, value) : 0;
    }
  }
  if (total > MAX_CONFIG_DATA_BYTES)
    causes.push({
      reason: "FieldValueTooLong",
      message: `Too long: may not be more than ${MAX_CONFIG_DATA_BYTES} bytes`,
      field: "",
    });
  return causes;
}

/**
 * The bytes a data value counts for against the 1 MiB limit, as kube-apiserver measures them: the
 * decoded bytes of base64 fields (Secret `data`, ConfigMap `binaryData`), the UTF-8 bytes of text.
 */
function dataBytes(kind: string, field: string, value: string): number {
  const base64 = (kind === "Secret" && field === "data") || field === "binaryData";
  return Buffer.byteLength(value, base64 ? "base64" : "utf8");
}

/** Throws a 413 when the stored form of the object would exceed etcd's request limit. */
export function checkObjectSize(object: JsonObject): void {
  if (Buffer.byteLength(JSON.stringify(object)) > MAX_OBJECT_BYTES)
    throw new ApiError(413, "RequestEntityTooLarge", "etcdserver: request is too large");
}
