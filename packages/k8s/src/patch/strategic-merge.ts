/**
 * Kubernetes strategic merge patch (`application/strategic-merge-patch+json`), as kube-apiserver and
 * kubectl apply it to built-in kinds: the merge keys and strategies of `patch-schema.ts`, and the
 * `$patch` / `$retainKeys` / `$deleteFromPrimitiveList` directives; new list elements are appended. No Kyverno anchors: a key such as
 * `(name)` is an ordinary key here (the engine resolves anchors before it merges).
 */
import type { JsonValue } from "@kyverno-ts/api";
import { isObject } from "../json/json.js";
import type { PatchResult } from "./json-patch.js";
import { MergeError, mergeValue } from "./merge.js";
import { schemaForKind } from "./patch-schema.js";

/** Which kind's merge keys to use; defaults to the resource's own `kind` and `apiVersion`. */
export interface StrategicMergePatchOptions {
  kind?: string;
  apiVersion?: string;
}

/** Merges `patch` into a copy of `resource`. Never throws; the inputs are not modified. */
export function applyStrategicMergePatch(
  resource: JsonValue,
  patch: JsonValue,
  options: StrategicMergePatchOptions = {},
): PatchResult {
  if (!isObject(resource)) return { ok: false, error: "the resource to patch must be a map" };
  if (!isObject(patch)) return { ok: false, error: "a strategic merge patch must be a map" };
  const kind = options.kind ?? (typeof resource.kind === "string" ? resource.kind : undefined);
  const apiVersion =
    options.apiVersion ?? (typeof resource.apiVersion === "string" ? resource.apiVersion : undefined);
  const merged = mergeValue(resource, patch, schemaForKind(kind, apiVersion), "", "apiserver");
  if (merged instanceof MergeError)
    return { ok: false, error: `failed to apply strategic merge patch: ${merged.message}` };
  return { ok: true, value: merged ?? resource };
}
