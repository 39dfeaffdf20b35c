/**
 * The recursive pattern walk (Kyverno's `validateResourceElement`) over a compiled pattern: dispatches
 * on the node's shape, checks maps key by key (anchors first) and lists by the rules of the array table.
 */
import type { JsonObject, JsonValue } from "@kyverno-ts/api";
import {
  type ArrayNode,
  compileMap,
  type MapEntry,
  type MapNode,
  type PatternNode,
  type ScalarNode,
} from "./compile.js";
import {
  enter,
  type Failure,
  failure,
  formatValue,
  indexSegment,
  isSkip,
  leave,
  pathOf,
  type WalkState,
} from "./failure.js";
import { checkKey } from "./handlers.js";
import { expandMetadataWildcards } from "./metadata-wildcards.js";
import { resolveReferences } from "./reference.js";
import { matchScalar, type ScalarPattern } from "./scalar.js";

/**
 * Checks `resource` against `pattern` at the path `state.segments` (`/spec/containers/0/`);
 * `undefined` means it matches.
 */
export function walk(resource: JsonValue, pattern: PatternNode, state: WalkState): Failure | undefined {
  state.budget?.charge("patternNodes", 1);
  switch (pattern.type) {
    case "array":
      if (!Array.isArray(resource)) {
        const path = pathOf(state);
        return failure(
          "mismatch",
          path,
          `validation rule failed at path ${path}, resource does not satisfy the expected overlay pattern`,
        );
      }
      return walkArray(resource, pattern, state);
    case "map":
      if (resource === null || typeof resource !== "object" || Array.isArray(resource)) {
        const path = pathOf(state);
        return failure(
          "mismatch",
          path,
          `pattern and resource have different structures. Path: ${path}. Expected map, found ${typeName(resource)}`,
        );
      }
      return walkMap(resource, pattern, state);
    case "scalar":
      return walkScalar(resource, pattern, state);
  }
}

function walkScalar(resource: JsonValue, pattern: ScalarNode, state: WalkState): Failure | undefined {
  let expected: ScalarPattern = pattern.value;
  let match = pattern.match;
  if (match === undefined) {
    const resolved = resolveReferences(expected as string, pathOf(state), state.origin);
    if (!resolved.ok) return failure("invalid", "", resolved.message);
    const value = resolved.value;
    expected = value;
    match = (v) => matchScalar(v, value);
  }
  if (Array.isArray(resource)) {
    state.budget?.charge("patternNodes", resource.length);
    for (const value of resource) {
      if (!match(value)) return scalarMismatch(resource, expected, state);
    }
    return undefined;
  }
  return match(resource) ? undefined : scalarMismatch(resource, expected, state);
}

function scalarMismatch(resource: JsonValue, expected: ScalarPattern, state: WalkState): Failure {
  const path = pathOf(state);
  return failure(
    "mismatch",
    path,
    `resource value '${formatValue(resource)}' does not match '${formatValue(expected)}' at path ${path}`,
  );
}

/** Anchors first (conditional, global, equality, negation, existence), then plain keys, nested anchors first. */
function walkMap(resource: JsonObject, node: MapNode, state: WalkState): Failure | undefined {
  recordAnchors(node, resource, state);
  let pattern = node;
  if (node.expands.length > 0 && hasTags(resource, node.expands)) {
    // Only the `metadata` value changes, so the anchors recorded above are those of the expansion too.
    const expanded = expandMetadataWildcards(node.source, resource);
    if (expanded !== node.source) pattern = compileMap(expanded, node);
  }
  // Anchors decide at once, and so does a conditional anchor failing right inside a plain key's map;
  // a plain key holding a list whose every element skipped does not end the map: the keys after it
  // may still fail (a privileged init container is found even when no container met the condition).
  let skipped: Failure[] | undefined;
  for (const entry of pattern.entries) {
    const result = checkKey(walk, entry, resource, state);
    if (result === undefined) continue;
    if (!isPlain(entry) || result.kind !== "skipped") return result;
    if (skipped === undefined) skipped = [result];
    else skipped.push(result);
  }
  if (skipped === undefined) return undefined;
  if (skipped.length === 1) return skipped[0];
  return failure("skipped", pathOf(state), skipped.map((f) => f.message).join("; "));
}

function isPlain(entry: MapEntry): boolean {
  return entry.anchor === "plain" || entry.anchor === "addIfNotPresent";
}

/** True when the resource's metadata has a non-empty map for one of `tags`, which wildcard keys could match. */
function hasTags(resource: JsonObject, tags: readonly string[]): boolean {
  const metadata = resource.metadata;
  if (metadata === null || typeof metadata !== "object" || Array.isArray(metadata)) return false;
  for (const tag of tags) {
    const map = metadata[tag];
    if (map !== null && typeof map === "object" && !Array.isArray(map)) {
      for (const key in map) if (Object.hasOwn(map, key)) return true;
    }
  }
  return false;
}

function walkArray(resource: JsonValue[], pattern: ArrayNode, state: WalkState): Failure | undefined {
  const elements = pattern.elements;
  const first = elements[0];
  if (first === undefined) return failure("mismatch", pathOf(state), "pattern Array empty");
  if (first.type === "map") return walkArrayOfMaps(resource, first, state);
  if (first.type === "scalar") return walkScalar(resource, first, state);
  // Lists of lists are compared position by position; skipped positions are ignored.
  if (resource.length < elements.length) {
    return failure(
      "mismatch",
      "",
      `validate Array failed, array length mismatch, resource Array len is ${resource.length} and pattern Array len is ${elements.length}`,
    );
  }
  for (let i = 0; i < elements.length; i++) {
    enter(state, indexSegment(i));
    const result = walk(resource[i] ?? null, elements[i] as PatternNode, state);
    leave(state);
    if (result !== undefined && !isSkip(result)) return result;
  }
  return undefined;
}

/**
 * Every element must match the map. Elements that skip (their conditional anchor does not hold) are
 * left out; the first element that fails decides; if every element skipped, the list skips (and with
 * a global anchor among the reasons, the whole rule does).
 */
function walkArrayOfMaps(resource: JsonValue[], pattern: MapNode, state: WalkState): Failure | undefined {
  let applied = 0;
  let skipped: string[] | undefined;
  let global = false;
  for (let i = 0; i < resource.length; i++) {
    enter(state, indexSegment(i));
    const result = walk(resource[i] as JsonValue, pattern, state);
    leave(state);
    if (result === undefined) applied++;
    else if (!isSkip(result)) return result;
    else {
      if (result.kind === "global") global = true;
      if (skipped === undefined) skipped = [result.message];
      else skipped.push(result.message);
    }
  }
  if (applied === 0 && skipped !== undefined)
    return failure(global ? "global" : "skipped", pathOf(state), skipped.join("; "));
  return undefined;
}

/** Upstream's AnchorMap: notes, per anchor key, whether any resource map checked against it had the key. */
function recordAnchors(pattern: MapNode, resource: JsonObject, state: WalkState): void {
  const recorded = pattern.recorded;
  if (recorded.length === 0) return;
  let seen = state.anchorsSeen;
  if (seen === undefined) {
    seen = new Map();
    state.anchorsSeen = seen;
  }
  for (const { patternKey, key } of recorded) {
    if (seen.get(patternKey) === true) continue;
    seen.set(patternKey, Object.hasOwn(resource, key));
  }
}

function typeName(value: JsonValue): string {
  if (value === null) return "nil";
  if (Array.isArray(value)) return "list";
  return typeof value;
}
