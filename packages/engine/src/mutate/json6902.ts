/** `patchesJson6902`: parsing the YAML string and applying RFC 6902 operations as upstream Kyverno does. */
import type { JsonObject, JsonValue } from "@kyverno-ts/api";
import { applyJsonPatch, isObject, type PatchResult } from "@kyverno-ts/k8s";
import { parseDocument } from "yaml";

/**
 * json-patch options. Both default to `true`, as upstream Kyverno applies patches: `remove` of a path
 * that does not exist does nothing, and `add` creates missing parents (`/a/b/-1/c` on an empty
 * document builds `{a: {b: [{c: …}]}}`). Negative indices always count from the end.
 */
export interface Json6902Options {
  allowMissingPathOnRemove?: boolean;
  ensurePathExistsOnAdd?: boolean;
}

/**
 * Applies RFC 6902 operations (already parsed, e.g. by `parseJson6902`) to a copy of `resource` with
 * Kyverno's leniencies (see {@link Json6902Options}). The first invalid operation or path makes the
 * whole patch fail with its index and reason. Never throws; `resource` is not modified.
 */
export function applyJson6902(
  resource: JsonValue,
  ops: JsonValue,
  options: Json6902Options = {},
): PatchResult {
  return applyJsonPatch(resource, ops, {
    allowMissingPathOnRemove: options.allowMissingPathOnRemove ?? true,
    ensurePathExistsOnAdd: options.ensurePathExistsOnAdd ?? true,
  });
}

/**
 * Parses a `patchesJson6902` YAML (or JSON) string into its list of operations. An empty string is an
 * empty list; anything else that is not a list of maps is an error. Use `applyJson6902` to apply them.
 */
export function parseJson6902(text: string): { ok: true; ops: JsonValue[] } | { ok: false; error: string } {
  const doc = parseDocument(text, { uniqueKeys: false });
  const first = doc.errors[0];
  if (first !== undefined) return { ok: false, error: `failed to decode JSON patch: ${first.message}` };
  const value: unknown = doc.toJS();
  if (value === null || value === undefined) return { ok: true, ops: [] };
  if (!Array.isArray(value))
    return { ok: false, error: "failed to decode JSON patch: not a list of operations" };
  const ops: JsonValue[] = [];
  for (const [i, op] of value.entries()) {
    const json = toJson(op);
    if (!isObject(json))
      return { ok: false, error: `failed to decode JSON patch: operation ${i} is not a map` };
    ops.push(json);
  }
  return { ok: true, ops };
}

/** Plain data from the YAML parser as JSON; non-JSON scalars (dates, bigints) become strings. */
function toJson(value: unknown): JsonValue {
  if (value === null || value === undefined) return null;
  if (typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") return Number.isFinite(value) ? value : String(value);
  if (Array.isArray(value)) return value.map(toJson);
  if (value instanceof Date) return value.toISOString();
  if (typeof value === "object") {
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(value)) out[k] = toJson(v);
    return out;
  }
  return String(value);
}
