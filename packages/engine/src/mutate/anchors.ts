/**
 * Evaluates Kyverno's anchors in a `patchStrategicMerge` overlay against the resource and turns the
 * overlay into a plain strategic-merge patch (upstream's `preProcessStrategicMergePatch`):
 * - `<(key)` global: the key must exist and match, otherwise the whole patch is skipped;
 * - `(key)` conditional: the key must exist and match, otherwise the enclosing map is not applied —
 *   which skips the whole patch, except inside a list where only that element is left out;
 * - `=(key)` equality: if the key exists it must match (as `(key)`); a missing key is fine;
 * - `+(key)` add-if-not-present: kept (as `key`) only when the resource has no such key.
 * A list element carrying anchors is evaluated against every resource element (the one with the same
 * merge key when it has one) and becomes one patch element per element it applies to.
 */
import type { JsonObject, JsonValue } from "@kyverno-ts/api";
import {
  fieldSchema,
  isObject,
  itemSchema,
  jsonEqual,
  listStrategy,
  MergeError,
  mergeValue,
  type PatchSchema,
} from "@kyverno-ts/k8s";
import {
  type AnchorKind,
  type CompiledPattern,
  compilePattern,
  parseAnchor,
  validateCompiled,
} from "../pattern/index.js";

/** The overlay without anchors (`undefined` when nothing is left), or why it does not apply. */
export type Preprocessed =
  | { readonly kind: "ok"; readonly value: JsonValue | undefined }
  | { readonly kind: "condition"; readonly reason: string }
  | { readonly kind: "global"; readonly reason: string }
  | { readonly kind: "error"; readonly error: string };

type Failed = Exclude<Preprocessed, { kind: "ok" }>;

const ok = (value: JsonValue | undefined): Preprocessed => ({ kind: "ok", value });

/** Compiles the pattern of an anchor; callers holding policy documents pass a caching one. */
export type AnchorPatterns = (pattern: JsonValue) => CompiledPattern;

/** Resolves the anchors of `overlay` (a map) against `resource`, which may be absent. */
export function preprocessMap(
  overlay: JsonObject,
  resource: JsonValue | undefined,
  schema: PatchSchema,
  path: string,
  patterns: AnchorPatterns = compilePattern,
): Preprocessed {
  const res = isObject(resource) ? resource : undefined;
  const entries = Object.entries(overlay).map(([key, value]) => ({ key, value, anchor: parseAnchor(key) }));
  // Global anchors first, then conditional and equality anchors.
  for (const { key, value, anchor } of entries) {
    if (anchor.kind !== "global") continue;
    const failed = checkAnchor(anchor.kind, anchor.key, value, res, `${path}/${key}`, patterns);
    if (failed !== undefined) return failed;
  }
  for (const { key, value, anchor } of entries) {
    if (anchor.kind !== "conditional" && anchor.kind !== "equality") continue;
    const failed = checkAnchor(anchor.kind, anchor.key, value, res, `${path}/${key}`, patterns);
    if (failed !== undefined) return failed;
  }
  const out: JsonObject = {};
  for (const { key, value, anchor } of entries) {
    if (anchor.kind === "negation" || anchor.kind === "existence") {
      return { kind: "error", error: `anchor ${key} at ${path || "/"} is not supported in mutate rules` };
    }
    let target: string;
    let current: JsonValue | undefined;
    if (anchor.kind === "plain") {
      target = key;
      current = res?.[key];
    } else if (anchor.kind === "addIfNotPresent") {
      if (res !== undefined && Object.hasOwn(res, anchor.key)) continue;
      target = anchor.key;
      current = undefined;
    } else continue;
    const inner = preprocessValue(value, current, fieldSchema(schema, target), `${path}/${target}`, patterns);
    if (inner.kind !== "ok") return inner;
    if (inner.value !== undefined) out[target] = inner.value;
  }
  return ok(Object.keys(out).length === 0 && entries.length > 0 ? undefined : out);
}

function preprocessValue(
  overlay: JsonValue,
  resource: JsonValue | undefined,
  schema: PatchSchema,
  path: string,
  patterns: AnchorPatterns,
): Preprocessed {
  if (isObject(overlay)) return preprocessMap(overlay, resource, schema, path, patterns);
  if (Array.isArray(overlay)) return preprocessList(overlay, resource, schema, path, patterns);
  return ok(overlay);
}

/** `undefined` when the anchor holds; otherwise the failure it causes. */
function checkAnchor(
  kind: AnchorKind,
  key: string,
  pattern: JsonValue,
  resource: JsonObject | undefined,
  path: string,
  patterns: AnchorPatterns,
): Failed | undefined {
  const present = resource !== undefined && Object.hasOwn(resource, key);
  if (!present && kind === "equality") return undefined;
  const failureKind = kind === "global" ? "global" : "condition";
  const name = kind === "global" ? "global" : "conditional";
  if (!present)
    return { kind: failureKind, reason: `${name} anchor key not found in the resource at ${path}` };
  const result = validateCompiled(resource[key] ?? null, patterns(pattern));
  if (result.status === "pass") return undefined;
  return { kind: failureKind, reason: `${name} anchor mismatch at ${path}: ${result.message}` };
}

interface AnchorScope {
  any: boolean;
  conditional: boolean;
  global: boolean;
}

/** Which anchors occur anywhere inside `value`. */
function anchorScope(
  value: JsonValue,
  scope: AnchorScope = { any: false, conditional: false, global: false },
): AnchorScope {
  if (Array.isArray(value)) {
    for (const item of value) anchorScope(item, scope);
  } else if (isObject(value)) {
    for (const [key, inner] of Object.entries(value)) {
      const { kind } = parseAnchor(key);
      if (kind !== "plain") scope.any = true;
      if (kind === "conditional" || kind === "equality") scope.conditional = true;
      if (kind === "global") scope.global = true;
      anchorScope(inner, scope);
    }
  }
  return scope;
}

/**
 * A list overlay: elements without anchors are kept as they are; an anchored element is evaluated per
 * resource element. For lists merged on a key, each element it applies to yields a patch element
 * carrying that key; for other lists the patched elements are computed here and the whole list is
 * returned, so that the elements it does not apply to are kept.
 */
function preprocessList(
  overlay: JsonValue[],
  resource: JsonValue | undefined,
  schema: PatchSchema,
  path: string,
  patterns: AnchorPatterns,
): Preprocessed {
  const scopes = overlay.map((e) => (isObject(e) ? anchorScope(e) : undefined));
  if (!scopes.some((scope) => scope?.any === true)) return ok(overlay);
  const strategy = listStrategy(schema);
  const key = strategy.kind === "keyed" ? strategy.key : undefined;
  const items = itemSchema(schema);
  const resources = Array.isArray(resource) ? resource : [];
  const out: JsonValue[] = [];
  const perElement = new Map<number, JsonObject[]>();
  for (const [position, element] of overlay.entries()) {
    const scope = scopes[position];
    if (!isObject(element) || scope === undefined || !scope.any) {
      out.push(element);
      continue;
    }
    const ownKey = key === undefined ? undefined : element[key];
    const candidates = resources
      .map((value, index) => ({ value, index }))
      .filter(
        ({ value }) => ownKey === undefined || (isObject(value) && jsonEqual(value[key ?? ""], ownKey)),
      );
    if (candidates.length === 0 && ownKey !== undefined && !scope.conditional && !scope.global) {
      // A new keyed element whose only anchors are add-if-not-present ones.
      const created = preprocessMap(element, undefined, items, `${path}/-`, patterns);
      if (created.kind !== "ok") return created;
      if (created.value !== undefined) out.push(created.value);
      continue;
    }
    let applied = false;
    let globalReason: string | undefined;
    for (const { value, index } of candidates) {
      const result = preprocessMap(element, value, items, `${path}/${index}`, patterns);
      if (result.kind === "condition") continue;
      if (result.kind === "global") {
        globalReason = result.reason;
        continue;
      }
      if (result.kind === "error") return result;
      if (key !== undefined && (!isObject(value) || value[key] === undefined)) continue;
      applied = true;
      if (!isObject(result.value)) continue;
      if (key !== undefined && isObject(value)) out.push({ [key]: value[key] ?? null, ...result.value });
      else perElement.set(index, [...(perElement.get(index) ?? []), result.value]);
    }
    if (scope.global && !applied) {
      return { kind: "global", reason: globalReason ?? `global anchor: no element of ${path} matched` };
    }
  }
  if (perElement.size > 0) return patchElements(resources, perElement, out, items, path);
  return ok(out.length === 0 ? undefined : out);
}

/** The full list for a list without merge key: each element patched in place, plain elements appended. */
function patchElements(
  resources: JsonValue[],
  patches: ReadonlyMap<number, JsonObject[]>,
  appended: JsonValue[],
  items: PatchSchema,
  path: string,
): Preprocessed {
  const list: JsonValue[] = [];
  for (const [index, element] of resources.entries()) {
    let current: JsonValue | undefined = element;
    for (const patch of patches.get(index) ?? []) {
      const merged = mergeValue(current, patch, items, `${path}/${index}`);
      if (merged instanceof MergeError) return { kind: "error", error: merged.message };
      current = merged;
    }
    if (current !== undefined) list.push(current);
  }
  return ok([...list, ...appended]);
}
