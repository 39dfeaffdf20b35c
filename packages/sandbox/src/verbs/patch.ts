/**
 * PATCH: JSON patch, JSON merge patch, strategic merge (built-ins only: custom resources get the 415
 * the real server sends) and a simplified server-side apply (create or merge, no field ownership).
 */
import type { JsonObject, JsonValue } from "@kyverno-ts/api";
import { applyJson6902, applyStrategicMerge } from "@kyverno-ts/engine";
import { mediaType } from "../http/body.js";
import { sendJson } from "../http/respond.js";
import { ApiError, badRequest, unsupportedMediaType } from "../http/status.js";
import { applyMergePatch } from "../objects/merge-patch.js";
import { asObject, metadataOf, toServedVersion } from "../objects/meta.js";
import type { ApiEnv, ResourceRequest } from "./context.js";
import { createObject } from "./create.js";
import { asResourceObject, readJson } from "./decode.js";
import { currentObject, updateObject } from "./update.js";

const JSON_PATCH = "application/json-patch+json";
const MERGE_PATCH = "application/merge-patch+json";
const STRATEGIC = "application/strategic-merge-patch+json";
const APPLY = "application/apply-patch+yaml";

/** The patch media types a resource accepts. */
export function patchTypes(strategicMerge: boolean): string[] {
  return strategicMerge ? [JSON_PATCH, MERGE_PATCH, STRATEGIC, APPLY] : [JSON_PATCH, MERGE_PATCH, APPLY];
}

/** Handles `PATCH /…/<resource>/<name>[/status]`. */
export async function handlePatch(env: ApiEnv, request: ResourceRequest): Promise<void> {
  const resource = request.resource;
  const type = mediaType(request.req.headers["content-type"]);
  const accepted = patchTypes(resource.strategicMerge);
  if (!accepted.includes(type)) throw unsupportedMediaType(accepted);
  const patch = await readJson(request, resource.kind);
  if (type === APPLY) {
    await handleApply(env, request, patch);
    return;
  }
  const existing = currentObject(env, request);
  const served = toServedVersion(existing, resource);
  const patched = asObject(patchObject(type, served, patch));
  if (patched === undefined) throw badRequest("the patched object is not a map");
  const object = asResourceObject(request, patched);
  const updated = await updateObject(env, request, existing, object, { put: false });
  sendJson(request.res, 200, toServedVersion(updated, resource));
}

function patchObject(type: string, object: JsonObject, patch: JsonValue): JsonValue {
  switch (type) {
    case JSON_PATCH: {
      if (!Array.isArray(patch))
        throw badRequest("json: cannot unmarshal object into Go value of type jsonpatch.Patch");
      const result = applyJson6902(object, patch, {
        allowMissingPathOnRemove: false,
        ensurePathExistsOnAdd: false,
      });
      if (!result.ok) throw new ApiError(422, "Invalid", result.error);
      return result.value;
    }
    case MERGE_PATCH:
      if (asObject(patch) === undefined) throw badRequest("the patch is not a JSON object");
      return applyMergePatch(object, patch);
    default: {
      if (asObject(patch) === undefined) throw badRequest("the patch is not a JSON object");
      const result = applyStrategicMerge(object, patch);
      if (!result.ok) throw badRequest(result.error);
      return result.value;
    }
  }
}

/**
 * Server-side apply, simplified: creates the object when absent, otherwise merges the applied
 * configuration into it (strategic merge for built-ins, merge patch for custom resources). There is no
 * field ownership: fields dropped from a later apply are kept and conflicts are never reported.
 */
async function handleApply(env: ApiEnv, request: ResourceRequest, patch: JsonValue): Promise<void> {
  const resource = request.resource;
  if ((request.query.get("fieldManager") ?? "") === "")
    throw badRequest("PATCH, application/apply-patch+yaml requests must specify a fieldManager");
  const applied = asResourceObject(request, patch);
  const name = typeof metadataOf(applied).name === "string" ? metadataOf(applied).name : "";
  if (name !== request.name)
    throw badRequest(
      `the name of the object (${String(name)}) does not match the name on the URL (${request.name})`,
    );
  const existing = env.store.get(
    resource.storageKey,
    resource.namespaced ? request.namespace : "",
    request.name,
  );
  if (existing === undefined) {
    const created = await createObject(env, request, applied);
    sendJson(request.res, 201, toServedVersion(created, resource));
    return;
  }
  const served = toServedVersion(existing, resource);
  const { metadata: _m, ...body } = applied;
  const meta = { ...metadataOf(applied) };
  delete meta.resourceVersion;
  const merged = asObject(
    patchObject(resource.strategicMerge ? STRATEGIC : MERGE_PATCH, served, { ...body, metadata: meta }),
  );
  if (merged === undefined) throw badRequest("the applied object is not a map");
  const updated = await updateObject(env, request, existing, asResourceObject(request, merged), {
    put: false,
  });
  sendJson(request.res, 200, toServedVersion(updated, resource));
}
