/**
 * The bridge to the admission chain: builds `AdmissionAttributes` from a request, applies the
 * mutated object, turns denials into Status errors and collects warnings for the response.
 */
import type { JsonObject, JsonValue } from "@kyverno-ts/api";
import type { AdmissionAttributes } from "../admission/types.js";
import { addWarnings } from "../http/respond.js";
import { ApiError } from "../http/status.js";
import { asObject, labelsOf, toServedVersion } from "../objects/meta.js";
import type { ApiEnv, ResourceRequest } from "./context.js";
import { isDryRun } from "./context.js";

/** Which write is being admitted. */
export interface AdmissionInput {
  operation: AdmissionAttributes["operation"];
  object: JsonObject | null;
  oldObject: JsonObject | null;
  options: JsonObject | null;
  /** Name and namespace of the object (the URL's may be empty on create). */
  name: string;
  namespace: string;
  /** The kind of `object` when it is not the resource's (subresources like `scale`, `exec`). */
  kind?: { group: string; version: string; kind: string };
}

/**
 * Runs the admission chain; returns the (possibly mutated) object, throws the denial as an ApiError.
 * Without a chain every request is admitted unchanged.
 */
export async function admit(
  env: ApiEnv,
  request: ResourceRequest,
  input: AdmissionInput,
): Promise<JsonObject | null> {
  if (env.admission === undefined) return input.object;
  const r = request.resource;
  const attrs: AdmissionAttributes = {
    operation: input.operation,
    kind: input.kind ?? { group: r.group, version: r.version, kind: r.kind },
    resource: { group: r.group, version: r.version, resource: r.plural },
    subResource: request.subresource,
    namespaced: r.namespaced,
    namespace: input.namespace,
    name: input.name,
    // An object of its own kind (a Scale, PodExecOptions) is sent as it is, not as the resource's version.
    object: input.object === null || input.kind ? input.object : toServedVersion(input.object, r),
    oldObject: input.oldObject === null || input.kind ? input.oldObject : toServedVersion(input.oldObject, r),
    options: input.options,
    dryRun: isDryRun(request.query),
    user: request.user,
    namespaceLabels: namespaceLabels(
      env,
      r.kind === "Namespace" && r.group === "" ? (input.object ?? input.oldObject) : null,
      input.namespace,
    ),
  };
  const result = await env.admission.admit(attrs);
  addWarnings(request.res, result.warnings);
  if (!result.allowed) {
    const s = result.status;
    throw new ApiError(s.code, s.reason, s.message, asObject(s.details as JsonValue | undefined));
  }
  return asObject(result.object ?? undefined) ?? input.object;
}

function namespaceLabels(
  env: ApiEnv,
  namespaceObject: JsonObject | null,
  namespace: string,
): Record<string, string> {
  if (namespaceObject !== null) return labelsOf(namespaceObject);
  if (namespace === "") return {};
  const ns = env.store.get("namespaces", "", namespace);
  return ns === undefined ? {} : labelsOf(ns);
}

/** The `options` object kube-apiserver puts in an AdmissionReview. */
export function operationOptions(
  kind: "CreateOptions" | "UpdateOptions" | "DeleteOptions" | "PatchOptions",
  request: ResourceRequest,
  extra: JsonObject = {},
): JsonObject {
  const options: JsonObject = { kind, apiVersion: "meta.k8s.io/v1", ...extra };
  const dryRun = request.query.getAll("dryRun");
  if (dryRun.length > 0) options.dryRun = dryRun;
  const fieldManager = request.query.get("fieldManager");
  if (fieldManager !== null && kind !== "DeleteOptions") options.fieldManager = fieldManager;
  return options;
}
