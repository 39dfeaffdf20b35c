/**
 * The normalization kube-apiserver's typed storage applies to built-in objects: a field whose Go type
 * is a slice or map tagged `omitempty` is not stored when it is empty. So `env: []`, `volumes: []` or
 * `metadata.labels: {}` (or `labels: null`) sent by a client are gone when the object is read back (and
 * before webhooks see it). Struct-typed fields stay (`securityContext: {}`, `resources: {}`), other
 * `null`s stay (pointers and timestamps are written back as `null`, e.g. a template's
 * `creationTimestamp: null`), and the few list fields without `omitempty` keep what was sent.
 * Custom resources and CRDs are unstructured upstream and are not touched.
 */
import type { JsonObject, JsonValue } from "@kyverno-ts/api";
import type { ResourceType } from "../registry/types.js";

/** Map-typed (`map[string]…`, `omitempty`) field names of the built-in kinds. */
const MAP_FIELDS = new Set([
  "labels",
  "annotations",
  "data",
  "binaryData",
  "stringData",
  "nodeSelector",
  "matchLabels",
  "limits",
  "requests",
  "hard",
  "used",
  "capacity",
  "allocatable",
  "overhead",
  "extra",
  "parameters",
  "volumeAttributes",
]);

/** Kinds whose `spec.selector` is a `map[string]string` (a LabelSelector struct elsewhere). */
const MAP_SELECTOR_KINDS = new Set(["Service", "ReplicationController"]);

/**
 * List fields without `omitempty` (dot path of keys, indices left out), per kind: an empty list sent
 * there is kept. Pod templates are covered by their path suffix (`…spec.containers`).
 */
const KEPT_LISTS: Record<string, string[]> = {
  ClusterRole: ["rules", "rules.verbs"],
  Role: ["rules", "rules.verbs"],
  EndpointSlice: ["endpoints", "endpoints.addresses"],
  MutatingWebhookConfiguration: ["webhooks.admissionReviewVersions"],
  ValidatingWebhookConfiguration: ["webhooks.admissionReviewVersions"],
};
const KEPT_LIST_SUFFIXES = ["spec.containers", "nodeSelectorTerms"];

/** Whether built-in normalization applies to objects of `resource`. */
export function normalizesStoredForm(resource: ResourceType): boolean {
  if (resource.custom) return false;
  return !(resource.kind === "CustomResourceDefinition" && resource.group === "apiextensions.k8s.io");
}

/** Drops empty `omitempty` lists and maps and `null` fields of a built-in object, in place. */
export function dropOmittedEmpties(resource: ResourceType, object: JsonObject): void {
  if (!normalizesStoredForm(resource)) return;
  const kept = KEPT_LISTS[resource.kind] ?? [];
  walk(object, "", (path, key, value) => {
    // A null decodes to the zero value: an omitted map, but a `null` pointer or timestamp is written back.
    if (value === null) return MAP_FIELDS.has(key);
    if (Array.isArray(value)) {
      if (value.length > 0) return false;
      return !kept.includes(path) && !KEPT_LIST_SUFFIXES.some((s) => path === s || path.endsWith(`.${s}`));
    }
    if (typeof value !== "object" || Object.keys(value).length > 0) return false;
    if (MAP_FIELDS.has(key)) return true;
    return key === "selector" && path === "spec.selector" && MAP_SELECTOR_KINDS.has(resource.kind);
  });
}

/** Walks objects and arrays; deletes an object's field when `drop(path, key, value)` says so. */
function walk(
  node: JsonValue,
  path: string,
  drop: (path: string, key: string, value: JsonValue) => boolean,
): void {
  if (Array.isArray(node)) {
    for (const item of node) walk(item, path, drop);
    return;
  }
  if (node === null || typeof node !== "object") return;
  for (const [key, value] of Object.entries(node)) {
    const child = path === "" ? key : `${path}.${key}`;
    // Map values are strings or quantities: nothing to normalize inside.
    if (!MAP_FIELDS.has(key)) walk(value, child, drop);
    if (drop(child, key, value)) delete node[key];
  }
}
