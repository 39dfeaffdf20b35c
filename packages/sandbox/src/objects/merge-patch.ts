/** RFC 7386 JSON merge patch (`application/merge-patch+json`). */
import type { JsonObject, JsonValue } from "@kyverno-ts/api";

/** Applies a merge patch: maps merge recursively, `null` deletes, everything else replaces. */
export function applyMergePatch(target: JsonValue | undefined, patch: JsonValue): JsonValue {
  if (patch === null || typeof patch !== "object" || Array.isArray(patch)) return patch;
  const base: JsonObject =
    target !== null && target !== undefined && typeof target === "object" && !Array.isArray(target)
      ? { ...target }
      : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete base[key];
    else base[key] = applyMergePatch(base[key], value);
  }
  return base;
}
