/**
 * The Pod spec conversion kube-apiserver applies to every stored Pod and Pod template: the deprecated
 * `serviceAccount` is an alias of `serviceAccountName` (read when the new field is empty) and is always
 * written back as a copy of it.
 */
import type { JsonObject } from "@kyverno-ts/api";
import { asObject } from "../objects/meta.js";
import type { ResourceType } from "../registry/types.js";

/** Where each built-in kind holds its Pod spec (a path of object keys). */
const POD_SPEC_PATHS: Record<string, string[]> = {
  Pod: ["spec"],
  PodTemplate: ["template", "spec"],
  ReplicationController: ["spec", "template", "spec"],
  Deployment: ["spec", "template", "spec"],
  ReplicaSet: ["spec", "template", "spec"],
  StatefulSet: ["spec", "template", "spec"],
  DaemonSet: ["spec", "template", "spec"],
  Job: ["spec", "template", "spec"],
  CronJob: ["spec", "jobTemplate", "spec", "template", "spec"],
};

/** The Pod spec of a built-in Pod or workload object (the object itself, not a copy), if it has one. */
export function podSpecOf(resource: ResourceType, object: JsonObject): JsonObject | undefined {
  if (resource.custom) return undefined;
  const path = POD_SPEC_PATHS[resource.kind];
  if (path === undefined) return undefined;
  let node: JsonObject | undefined = object;
  for (const key of path) node = node === undefined ? undefined : asObject(node[key]);
  return node;
}

/** Keeps `serviceAccount` and `serviceAccountName` of the object's Pod spec in step, in place. */
export function syncDeprecatedServiceAccount(resource: ResourceType, object: JsonObject): void {
  const spec = podSpecOf(resource, object);
  if (spec === undefined) return;
  const name = typeof spec.serviceAccountName === "string" ? spec.serviceAccountName : "";
  const deprecated = typeof spec.serviceAccount === "string" ? spec.serviceAccount : "";
  const effective = name !== "" ? name : deprecated;
  if (effective === "") {
    delete spec.serviceAccountName;
    delete spec.serviceAccount;
    return;
  }
  spec.serviceAccountName = effective;
  spec.serviceAccount = effective;
}
