/** PUT on an object (and its `status` / `finalize` subresources): optimistic concurrency, admission, no-op detection. */
import type { JsonObject } from "@kyverno-ts/api";
import { sendJson } from "../http/respond.js";
import { badRequest, conflict, fieldForbidden, invalid, notFound, OBJECT_MODIFIED } from "../http/status.js";
import { finalizersOf, metaString, toServedVersion, toStorageVersion } from "../objects/meta.js";
import { ephemeralContainerChanges } from "../validation/ephemeral-containers.js";
import { checkObjectSize, validateObject } from "../validation/object.js";
import { admit, operationOptions } from "./admit.js";
import type { ApiEnv, ResourceRequest } from "./context.js";
import { isDryRun } from "./context.js";
import { validateCrd } from "./crd-rules.js";
import { asResourceObject, readJson } from "./decode.js";
import { isFinalized, isNoop, prepareUpdate } from "./object-rules.js";
import { checkCustomResource, decodeCustomResource, validateCustomResource } from "./schema-rules.js";

/** Handles `PUT /…/<resource>/<name>[/status|/finalize]`. */
export async function handleUpdate(env: ApiEnv, request: ResourceRequest): Promise<void> {
  const incoming = asResourceObject(request, await readJson(request, request.resource.kind));
  const bodyName = metaString(incoming, "name");
  if (bodyName !== request.name)
    throw badRequest(
      `the name of the object (${bodyName}) does not match the name on the URL (${request.name})`,
    );
  const existing = currentObject(env, request);
  const updated = await updateObject(env, request, existing, incoming, { put: true });
  sendJson(request.res, 200, toServedVersion(updated, request.resource));
}

/** The stored object the request addresses, or a 404. */
export function currentObject(env: ApiEnv, request: ResourceRequest): JsonObject {
  const r = request.resource;
  const existing = env.store.get(r.storageKey, r.namespaced ? request.namespace : "", request.name);
  if (existing === undefined) throw notFound({ group: r.group, resource: r.plural }, request.name);
  return existing;
}

/** The shared update path of PUT and PATCH; `put` enforces the resourceVersion rules of PUT. */
export async function updateObject(
  env: ApiEnv,
  request: ResourceRequest,
  existing: JsonObject,
  incoming: JsonObject,
  options: { put: boolean /** Already admitted through a subresource (`scale`). */; admitted?: boolean },
): Promise<JsonObject> {
  const resource = request.resource;
  const gr = { group: resource.group, resource: resource.plural };
  const rv = metaString(incoming, "resourceVersion");
  if (rv === "" && options.put && resource.requireResourceVersion)
    throw invalid(resource.group, resource.kind, request.name, [
      {
        reason: "FieldValueInvalid",
        message: "Invalid value: 0x0: must be specified for an update",
        field: "metadata.resourceVersion",
      },
    ]);
  if (rv !== "" && rv !== metaString(existing, "resourceVersion"))
    throw conflict(gr, request.name, OBJECT_MODIFIED);
  let next = prepareUpdate(resource, request.subresource, existing, incoming);
  if (resource.custom) next = decodeCustomResource(resource, next, request);
  const admitted =
    options.admitted === true
      ? null
      : await admit(env, request, {
          operation: "UPDATE",
          object: next,
          oldObject: existing,
          options: operationOptions("UpdateOptions", request),
          name: request.name,
          namespace: resource.namespaced ? request.namespace : "",
        });
  if (admitted !== null) next = prepareUpdate(resource, request.subresource, existing, admitted);
  validateObject(resource, next);
  if (request.subresource === "ephemeralcontainers" && resource.kind === "Pod") {
    const causes = ephemeralContainerChanges(existing, next);
    if (causes.length > 0) throw invalid(resource.group, resource.kind, request.name, causes);
  }
  env.checkWrite?.(request, next, existing);
  checkFinalizers(request, existing, next);
  if (resource.kind === "CustomResourceDefinition" && resource.group === "apiextensions.k8s.io")
    validateCrd(next);
  if (resource.custom) {
    // Decoded above; again only when a webhook's patch may have added fields or removed defaults.
    if (admitted === null) checkCustomResource(resource, next);
    else next = validateCustomResource(resource, next, request);
  }
  next = toStorageVersion(next, resource);
  if (isNoop(existing, next)) return existing;
  checkObjectSize(next);
  if (isDryRun(request.query)) return next;
  const stored = env.store.update(resource.storageKey, next);
  if (metaString(stored, "deletionTimestamp") !== "" && isFinalized(stored)) {
    env.store.remove(resource.storageKey, resource.namespaced ? request.namespace : "", request.name);
  }
  return stored;
}

function checkFinalizers(request: ResourceRequest, existing: JsonObject, next: JsonObject): void {
  if (metaString(existing, "deletionTimestamp") === "") return;
  const old = new Set(finalizersOf(existing));
  if (finalizersOf(next).some((f) => !old.has(f)))
    throw invalid(request.resource.group, request.resource.kind, request.name, [
      fieldForbidden("metadata.finalizers", "no new finalizers can be added if the object is being deleted"),
    ]);
}
