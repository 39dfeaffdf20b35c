/** CustomResourceDefinition specifics: the checks kube-apiserver makes and the status it reports. */
import type { JsonObject } from "@kyverno-ts/api";
import { fieldInvalid, fieldRequired, invalid, type StatusCause } from "../http/status.js";
import { asObject, asObjects, metaString } from "../objects/meta.js";

/** The status an accepted CRD reports (names accepted, established, stored versions). */
export function crdStatus(crd: JsonObject): JsonObject {
  const spec = asObject(crd.spec) ?? {};
  const versions = asObjects(spec.versions);
  const storage = versions.find((v) => v.storage === true);
  const now = (asObject(crd.metadata)?.creationTimestamp as string | undefined) ?? "";
  const condition = (type: string, reason: string, message: string): JsonObject => ({
    type,
    status: "True",
    lastTransitionTime: now,
    reason,
    message,
  });
  return {
    conditions: [
      condition("NamesAccepted", "NoConflicts", "no conflicts found"),
      condition("Established", "InitialNamesAccepted", "the initial names have been accepted"),
    ],
    acceptedNames: asObject(spec.names) ?? {},
    storedVersions: storage === undefined ? [] : [String(storage.name)],
  };
}

/** Throws a 422 when the CRD could not be served (names, group, versions). */
export function validateCrd(crd: JsonObject): void {
  const spec = asObject(crd.spec) ?? {};
  const names = asObject(spec.names) ?? {};
  const causes: StatusCause[] = [];
  const group = typeof spec.group === "string" ? spec.group : "";
  const plural = typeof names.plural === "string" ? names.plural : "";
  if (group === "") causes.push(fieldRequired("spec.group", ""));
  if (plural === "") causes.push(fieldRequired("spec.names.plural", ""));
  if (typeof names.kind !== "string" || names.kind === "") causes.push(fieldRequired("spec.names.kind", ""));
  if (typeof names.listKind !== "string" || names.listKind === "")
    causes.push(fieldRequired("spec.names.listKind", ""));
  if (spec.scope !== "Namespaced" && spec.scope !== "Cluster")
    causes.push(fieldInvalid("spec.scope", spec.scope ?? "", "should be either Cluster or Namespaced"));
  const name = metaString(crd, "name");
  if (group !== "" && plural !== "" && name !== `${plural}.${group}`)
    causes.push(fieldInvalid("metadata.name", name, `must be spec.names.plural+"."+spec.group`));
  const versions = asObjects(spec.versions);
  if (versions.length === 0)
    causes.push(fieldInvalid("spec.versions", [], "must have exactly one version marked as storage version"));
  else if (versions.filter((v) => v.storage === true).length !== 1)
    causes.push(
      fieldInvalid("spec.versions", null, "must have exactly one version marked as storage version"),
    );
  if (causes.length > 0) throw invalid("apiextensions.k8s.io", "CustomResourceDefinition", name, causes);
}
