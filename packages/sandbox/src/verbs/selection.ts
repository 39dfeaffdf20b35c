/** The selectors of a list, watch or deletecollection request, parsed once. */
import type { JsonObject } from "@kyverno-ts/api";
import { badRequest } from "../http/status.js";
import { labelsOf, metaString } from "../objects/meta.js";
import { COMMON_SELECTABLE_FIELDS, matchesFields, parseFieldSelector } from "../selectors/field-selector.js";
import { matchesLabels, parseLabelSelector } from "../selectors/label-selector.js";
import type { ResourceRequest } from "./context.js";

/** A predicate over stored objects: namespace of the URL plus label and field selectors. */
export type Selection = (object: JsonObject) => boolean;

/** Builds the selection of a request; invalid selectors are a 400. */
export function selectionOf(request: ResourceRequest): Selection {
  const labels = parseLabelSelector(request.query.get("labelSelector") ?? "");
  if (!labels.ok) throw badRequest(labels.error);
  const fields = parseFieldSelector(request.query.get("fieldSelector") ?? "", [
    ...COMMON_SELECTABLE_FIELDS,
    ...request.resource.selectableFields,
  ]);
  if (!fields.ok) throw badRequest(fields.error);
  const namespace = request.resource.namespaced ? request.namespace : "";
  const labelSelector = labels.selector;
  const fieldSelector = fields.selector;
  return (object) =>
    (namespace === "" || metaString(object, "namespace") === namespace) &&
    matchesLabels(labelSelector, labelsOf(object)) &&
    matchesFields(fieldSelector, object);
}
