/**
 * The recursive pattern walk (Kyverno's `validateResourceElement`): dispatches on the pattern's shape,
 * checks maps key by key (anchors first) and lists by the rules of the array table.
 */
import type { JsonObject, JsonValue } from "@kyverno-ts/api";
import { hasNestedAnchors, parseAnchor } from "./anchor.js";
import { type Failure, failure, formatValue, isSkip, type WalkState } from "./failure.js";
import { checkKey } from "./handlers.js";
import { expandMetadataWildcards } from "./metadata-wildcards.js";
import { hasReference, resolveReferences } from "./reference.js";
import { matchScalar, type ScalarPattern } from "./scalar.js";

/** Checks `resource` against `pattern` at `path` (`/spec/containers/0/`); `undefined` means it matches. */
export function walk(
  resource: JsonValue,
  pattern: JsonValue,
  path: string,
  state: WalkState,
): Failure | undefined {
  if (Array.isArray(pattern)) {
    if (!Array.isArray(resource)) {
      return failure(
        "mismatch",
        path,
        `validation rule failed at path ${path}, resource does not satisfy the expected overlay pattern`,
      );
    }
    return walkArray(resource, pattern, path, state);
  }
  if (pattern !== null && typeof pattern === "object") {
    if (resource === null || typeof resource !== "object" || Array.isArray(resource)) {
      return failure(
        "mismatch",
        path,
        `pattern and resource have different structures. Path: ${path}. Expected map, found ${typeName(resource)}`,
      );
    }
    recordAnchors(pattern, resource, state);
    return walkMap(resource, pattern, path, state);
  }
  return walkScalar(resource, pattern, path, state);
}

function walkScalar(
  resource: JsonValue,
  pattern: ScalarPattern,
  path: string,
  state: WalkState,
): Failure | undefined {
  let expected = pattern;
  if (typeof pattern === "string" && hasReference(pattern)) {
    const resolved = resolveReferences(pattern, path, state.origin);
    if (!resolved.ok) return failure("invalid", "", resolved.message);
    expected = resolved.value;
  }
  const values = Array.isArray(resource) ? resource : [resource];
  for (const value of values) {
    if (!matchScalar(value, expected)) {
      return failure(
        "mismatch",
        path,
        `resource value '${formatValue(resource)}' does not match '${formatValue(expected)}' at path ${path}`,
      );
    }
  }
  return undefined;
}

/** Anchors first (conditional, global, equality, negation, existence), then plain keys, nested anchors first. */
function walkMap(
  resource: JsonObject,
  rawPattern: JsonObject,
  path: string,
  state: WalkState,
): Failure | undefined {
  const pattern = expandMetadataWildcards(rawPattern, resource);
  const anchored: string[] = [];
  const nested: string[] = [];
  const flat: string[] = [];
  for (const key of Object.keys(pattern).sort(compareStrings)) {
    const kind = parseAnchor(key).kind;
    if (kind !== "plain" && kind !== "addIfNotPresent") anchored.push(key);
    else if (hasNestedAnchors(pattern[key])) nested.push(key);
    else flat.push(key);
  }
  for (const key of [...anchored, ...nested, ...flat]) {
    const result = checkKey(walk, key, pattern[key] ?? null, resource, path, state);
    if (result !== undefined) return result;
  }
  return undefined;
}

function walkArray(
  resource: JsonValue[],
  pattern: JsonValue[],
  path: string,
  state: WalkState,
): Failure | undefined {
  const first = pattern[0];
  if (first === undefined) return failure("mismatch", path, "pattern Array empty");
  if (first !== null && typeof first === "object" && !Array.isArray(first)) {
    return walkArrayOfMaps(resource, first, path, state);
  }
  if (!Array.isArray(first)) return walkScalar(resource, first, path, state);
  // Lists of lists are compared position by position; skipped positions are ignored.
  if (resource.length < pattern.length) {
    return failure(
      "mismatch",
      "",
      `validate Array failed, array length mismatch, resource Array len is ${resource.length} and pattern Array len is ${pattern.length}`,
    );
  }
  for (const [i, element] of pattern.entries()) {
    const result = walk(resource[i] ?? null, element, `${path}${i}/`, state);
    if (result !== undefined && !isSkip(result)) return result;
  }
  return undefined;
}

/**
 * Every element must match the map. Elements that skip (their conditional anchor does not hold) are
 * left out; the first element that fails decides; if every element skipped, the list skips.
 */
function walkArrayOfMaps(
  resource: JsonValue[],
  pattern: JsonObject,
  path: string,
  state: WalkState,
): Failure | undefined {
  let applied = 0;
  const skipped: Failure[] = [];
  for (const [i, element] of resource.entries()) {
    const result = walk(element, pattern, `${path}${i}/`, state);
    if (result === undefined) applied++;
    else if (isSkip(result)) skipped.push(result);
    else return result;
  }
  if (applied === 0 && skipped.length > 0) {
    return failure("skipped", path, skipped.map((s) => s.message).join("; "));
  }
  return undefined;
}

/** Upstream's AnchorMap: notes, per anchor key, whether any resource map checked against it had the key. */
function recordAnchors(pattern: JsonObject, resource: JsonObject, state: WalkState): void {
  for (const patternKey of Object.keys(pattern)) {
    const { kind, key } = parseAnchor(patternKey);
    if (kind !== "conditional" && kind !== "existence" && kind !== "negation") continue;
    if (state.anchorsSeen.get(patternKey) === true) continue;
    state.anchorsSeen.set(patternKey, Object.hasOwn(resource, key));
  }
}

function typeName(value: JsonValue): string {
  if (value === null) return "nil";
  if (Array.isArray(value)) return "list";
  return typeof value;
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
