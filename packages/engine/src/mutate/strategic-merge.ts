/** `patchStrategicMerge`: Kyverno's anchors resolved against the resource, then a strategic merge. */
import type { JsonValue } from "@kyverno-ts/api";
import { isObject, MergeError, mergeValue, type PatchResult, schemaForKind } from "@kyverno-ts/k8s";
import { type AnchorPatterns, preprocessMap } from "./anchors.js";

/** The resource, unchanged, because a conditional or global anchor did not hold; `reason` says which. */
export type SkippedPatch = { ok: true; value: JsonValue; skipped: true; reason: string };

/** Which kind's merge keys to use; defaults to the resource's own `kind` and `apiVersion`. */
export interface StrategicMergeOptions {
  kind?: string;
  apiVersion?: string;
  /** Compiles the patterns of conditional/global anchors (an engine passes one caching policy documents). */
  patterns?: AnchorPatterns;
}

/**
 * Kyverno `patchStrategicMerge`: Kubernetes strategic merge for built-in kinds plus Kyverno anchors.
 * `{{ }}` variables must already be substituted. A conditional or global anchor that does not hold
 * leaves the resource unchanged and returns `skipped` (a conditional inside a list only drops that
 * element). Never throws and never mutates its inputs; the result shares unchanged subtrees with them.
 * For RFC 6902 operations use `applyJson6902` instead.
 */
export function applyStrategicMerge(
  resource: JsonValue,
  patch: JsonValue,
  options: StrategicMergeOptions = {},
): PatchResult | SkippedPatch {
  if (!isObject(resource)) return { ok: false, error: "the resource to patch must be a map" };
  if (!isObject(patch)) return { ok: false, error: "patchStrategicMerge must be a map" };
  const kind = options.kind ?? stringField(resource.kind);
  const apiVersion = options.apiVersion ?? stringField(resource.apiVersion);
  const schema = schemaForKind(kind, apiVersion);
  const overlay = preprocessMap(patch, resource, schema, "", options.patterns);
  switch (overlay.kind) {
    case "condition":
    case "global":
      return { ok: true, value: resource, skipped: true, reason: overlay.reason };
    case "error":
      return { ok: false, error: overlay.error };
    case "ok":
      break;
  }
  const merged = mergeValue(resource, overlay.value ?? {}, schema, "");
  if (merged instanceof MergeError)
    return { ok: false, error: `failed to apply strategic merge patch: ${merged.message}` };
  return { ok: true, value: merged ?? resource };
}

function stringField(value: JsonValue | undefined): string | undefined {
  return typeof value === "string" ? value : undefined;
}
