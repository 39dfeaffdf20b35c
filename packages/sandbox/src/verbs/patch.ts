/**
 * PATCH: JSON patch, JSON merge patch, strategic merge (built-ins only: custom resources get the 415
 * the real server sends) and a simplified server-side apply (create or merge; fields a manager stops
 * applying are removed, no managedFields or conflicts).
 */
import { isDeepStrictEqual } from "node:util";
import type { JsonObject, JsonValue } from "@kyverno-ts/api";
import { applyJsonPatch, applyStrategicMergePatch } from "@kyverno-ts/k8s";
import { mediaType } from "../http/body.js";
import { sendJson } from "../http/respond.js";
import { ApiError, badRequest, unsupportedMediaType } from "../http/status.js";
import { applyMergePatch } from "../objects/merge-patch.js";
import { asObject, metadataOf, toServedVersion } from "../objects/meta.js";
import { type ApiEnv, isDryRun, type ResourceRequest } from "./context.js";
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
      const result = applyJsonPatch(object, patch);
      if (!result.ok) throw new ApiError(422, "Invalid", result.error);
      return result.value;
    }
    case MERGE_PATCH:
      if (asObject(patch) === undefined) throw badRequest("the patch is not a JSON object");
      return applyMergePatch(object, patch);
    default: {
      if (asObject(patch) === undefined) throw badRequest("the patch is not a JSON object");
      const result = applyStrategicMergePatch(object, patch);
      if (!result.ok) throw badRequest(result.error);
      return result.value;
    }
  }
}

/**
 * `live` without what `previous` (the manager's last applied configuration) set and `next` (its new
 * one) no longer does, as server-side apply removes the fields a manager stops applying. Without
 * managedFields, a field counts as the manager's while it still holds the value it applied; lists are
 * taken whole (one the manager applied and nobody changed is replaced by the new one, not merged).
 * `undefined` means: remove it.
 */
export function withoutDropped(
  live: JsonValue,
  previous: JsonValue,
  next: JsonValue | undefined,
): JsonValue | undefined {
  const liveMap = asObject(live);
  const previousMap = asObject(previous);
  if (
    liveMap !== undefined &&
    previousMap !== undefined &&
    (next === undefined || asObject(next) !== undefined)
  ) {
    if (next === undefined && isDeepStrictEqual(live, previous)) return undefined;
    const nextMap = next === undefined ? undefined : asObject(next);
    const out: JsonObject = { ...liveMap };
    for (const [key, value] of Object.entries(previousMap)) {
      if (!(key in out)) continue;
      const kept = withoutDropped(out[key] as JsonValue, value, nextMap?.[key]);
      if (kept === undefined) delete out[key];
      else out[key] = kept;
    }
    return out;
  }
  if (next === undefined || Array.isArray(next)) return isDeepStrictEqual(live, previous) ? undefined : live;
  return live;
}

/** Key of the configuration a manager applied to one object (by uid: a recreated object starts afresh). */
const appliedKey = (object: JsonObject, manager: string): string =>
  `${String(metadataOf(object).uid)}/${manager}`;

/**
 * Server-side apply, simplified: creates the object when absent, otherwise merges the applied
 * configuration into it (strategic merge for built-ins, merge patch for custom resources), first
 * removing what the same field manager applied before and no longer does (`withoutDropped`).
 * Conflicts are never reported and no managedFields are kept.
 */
async function handleApply(env: ApiEnv, request: ResourceRequest, patch: JsonValue): Promise<void> {
  const resource = request.resource;
  const manager = request.query.get("fieldManager") ?? "";
  if (manager === "")
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
  const remember = (object: JsonObject): void => {
    if (!isDryRun(request.query) && request.subresource === "")
      env.appliedConfigurations?.set(appliedKey(object, manager), applied);
  };
  if (existing === undefined) {
    const created = await createObject(env, request, applied);
    remember(created);
    sendJson(request.res, 201, toServedVersion(created, resource));
    return;
  }
  const served = toServedVersion(existing, resource);
  const previous = env.appliedConfigurations?.get(appliedKey(existing, manager));
  const base =
    previous === undefined ? served : (asObject(withoutDropped(served, previous, applied)) ?? served);
  const { metadata: _m, ...body } = applied;
  const meta = { ...metadataOf(applied) };
  delete meta.resourceVersion;
  const merged = asObject(
    patchObject(resource.strategicMerge ? STRATEGIC : MERGE_PATCH, base, { ...body, metadata: meta }),
  );
  if (merged === undefined) throw badRequest("the applied object is not a map");
  const updated = await updateObject(env, request, existing, asResourceObject(request, merged), {
    put: false,
  });
  remember(updated);
  sendJson(request.res, 200, toServedVersion(updated, resource));
}
