/**
 * Compiling a validate pattern once into the tree the walk evaluates: anchors parsed, map keys in
 * the order the walk checks them, scalar matchers built, and the few parts that depend on the
 * resource (`$(...)` references, wildcard label/annotation keys under `metadata`) flagged.
 */
import type { JsonObject, JsonValue } from "@kyverno-ts/api";
import { hasWildcard } from "../wildcard/wildcard.js";
import { type AnchorKind, hasNestedAnchors, parseAnchor } from "./anchor.js";
import { hasReference } from "./reference.js";
import { compileScalar, type ScalarMatcher, type ScalarPattern } from "./scalar.js";

/** One node of a compiled pattern. */
export type PatternNode = MapNode | ArrayNode | ScalarNode;

/** A pattern map: its entries in evaluation order. */
export interface MapNode {
  readonly type: "map";
  /** The pattern map as written (before any metadata wildcard expansion). */
  readonly source: JsonObject;
  /** Anchored keys first, then plain keys whose values hold anchors, then the rest; each group sorted. */
  readonly entries: readonly MapEntry[];
  /** Conditional, existence and negation anchors, recorded per resource map for upstream's AnchorMap. */
  readonly recorded: readonly MapEntry[];
  /**
   * `labels` and/or `annotations` when the map's `metadata` holds wildcard keys under them, which are
   * expanded against each resource (see `expandMetadataWildcards`); empty for most maps.
   */
  readonly expands: readonly string[];
}

/** One key of a pattern map. */
export interface MapEntry {
  /** The key as written, anchor included (`=(securityContext)`). */
  readonly patternKey: string;
  readonly anchor: AnchorKind;
  /** The resource key it checks: the bare key for anchors, the key as written for plain and `+()` keys. */
  readonly key: string;
  /** `key` followed by `/`, for failure paths. */
  readonly segment: string;
  readonly value: PatternNode;
  /** The value holds anchors somewhere inside (plain keys holding anchors are checked first). */
  readonly nestedAnchors: boolean;
}

/** A pattern list: its compiled elements (the walk mostly looks at the first one). */
export interface ArrayNode {
  readonly type: "array";
  readonly elements: readonly PatternNode[];
}

/** A pattern leaf with its matcher; strings holding `$(...)` references are resolved per check. */
export interface ScalarNode {
  readonly type: "scalar";
  readonly value: ScalarPattern;
  /** Undefined when the value holds a `$(...)` reference, which depends on where it is checked. */
  readonly match: ScalarMatcher | undefined;
}

/** A whole compiled pattern: the root node and the pattern it came from (for `$(...)` references). */
export interface CompiledPattern {
  readonly root: PatternNode;
  readonly source: JsonValue;
  /** The deepest path the walk can reach, in segments (sizes the walk's path buffer). */
  readonly depth: number;
}

/** Compiles a pattern whose `{{ }}` variables are already substituted. */
export function compilePattern(pattern: JsonValue): CompiledPattern {
  const root = compileNode(pattern);
  return { root, source: pattern, depth: depthOf(root) };
}

function depthOf(node: PatternNode): number {
  let deepest = 0;
  if (node.type === "map")
    for (const entry of node.entries) deepest = Math.max(deepest, depthOf(entry.value));
  else if (node.type === "array")
    for (const element of node.elements) deepest = Math.max(deepest, depthOf(element));
  else return 0;
  return deepest + 1;
}

/** Compiles one pattern value (map, list or scalar). */
export function compileNode(pattern: JsonValue | undefined): PatternNode {
  const value = pattern ?? null;
  if (Array.isArray(value)) return { type: "array", elements: value.map(compileNode) };
  if (value !== null && typeof value === "object") return compileMap(value);
  const reference = typeof value === "string" && hasReference(value);
  return { type: "scalar", value, match: reference ? undefined : compileScalar(value) };
}

/**
 * Compiles a pattern map: keys sorted, then grouped as the walk checks them. Entries of `previous`
 * (a compiled map this one was derived from) whose key and value are unchanged are reused as they are.
 */
export function compileMap(source: JsonObject, previous?: MapNode): MapNode {
  const anchored: MapEntry[] = [];
  const nested: MapEntry[] = [];
  const flat: MapEntry[] = [];
  const recorded: MapEntry[] = [];
  for (const patternKey of Object.keys(source).sort(compareStrings)) {
    const raw = source[patternKey] ?? null;
    const known = previous?.entries.find((e) => e.patternKey === patternKey);
    const entry =
      known !== undefined && previous?.source[patternKey] === source[patternKey]
        ? known
        : compileEntry(patternKey, raw);
    if (entry.anchor !== "plain" && entry.anchor !== "addIfNotPresent") anchored.push(entry);
    else if (entry.nestedAnchors) nested.push(entry);
    else flat.push(entry);
    const kind = entry.anchor;
    if (kind === "conditional" || kind === "existence" || kind === "negation") recorded.push(entry);
  }
  return {
    type: "map",
    source,
    entries: [...anchored, ...nested, ...flat],
    recorded,
    expands: wildcardTags(source),
  };
}

/**
 * The tags (`labels`, `annotations`) for which `expandMetadataWildcards` can change this map: its
 * `metadata` map has a map of that tag with a wildcard key.
 */
function wildcardTags(pattern: JsonObject): string[] {
  const metadata = tagValue(pattern, "metadata");
  if (!isObject(metadata)) return [];
  return ["labels", "annotations"].filter((tag) => {
    const tags = tagValue(metadata, tag);
    return isObject(tags) && Object.keys(tags).some(hasWildcard);
  });
}

/** The value of the key naming `tag`, with or without an anchor, as `expandMetadataWildcards` finds it. */
function compileEntry(patternKey: string, raw: JsonValue): MapEntry {
  const { kind, key } = parseAnchor(patternKey);
  const lookup = kind === "plain" || kind === "addIfNotPresent" ? patternKey : key;
  return {
    patternKey,
    anchor: kind,
    key: lookup,
    segment: `${lookup}/`,
    value: compileNode(raw),
    nestedAnchors: hasNestedAnchors(raw),
  };
}

function tagValue(map: JsonObject, tag: string): JsonValue | undefined {
  if (Object.hasOwn(map, tag)) return map[tag];
  const key = Object.keys(map).find((k) => parseAnchor(k).key === tag);
  return key === undefined ? undefined : map[key];
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return value !== null && value !== undefined && typeof value === "object" && !Array.isArray(value);
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
