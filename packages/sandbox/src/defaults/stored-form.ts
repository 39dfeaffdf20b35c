/**
 * The stored form of a built-in object, as kube-apiserver's decode → typed object → encode round trip
 * leaves it: Pod spec conversion, then empty `omitempty` fields and nulls dropped.
 */
import type { JsonObject } from "@kyverno-ts/api";
import type { ResourceType } from "../registry/types.js";
import { dropOmittedEmpties, normalizesStoredForm } from "./omitempty.js";
import { syncDeprecatedServiceAccount } from "./pod-spec.js";

/** A normalized copy of a built-in object (custom resources and CRDs are returned as they are). */
export function toStoredForm(resource: ResourceType, object: JsonObject): JsonObject {
  if (!normalizesStoredForm(resource)) return object;
  const copy = structuredClone(object);
  syncDeprecatedServiceAccount(resource, copy);
  dropOmittedEmpties(resource, copy);
  return copy;
}
