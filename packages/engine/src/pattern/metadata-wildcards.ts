/**
 * Wildcard keys under `metadata.labels` and `metadata.annotations` of a pattern (`app.kubernetes.io/*: "?*"`,
 * `X(fluxcd.io/*): "*"`) are rewritten to the resource keys they match before the map is checked,
 * keeping any anchor. A wildcard key with no match stays as written, so it is looked up literally
 * (and is therefore missing). Upstream expands to one arbitrary match; this expands to every match,
 * which is deterministic and agrees with upstream whenever all matches agree.
 */
import type { JsonObject, JsonValue } from "@kyverno-ts/api";
import { hasWildcard, matchWildcard } from "../wildcard/wildcard.js";
import { anchorWrap, parseAnchor } from "./anchor.js";

/**
 * Returns `pattern` with wildcard label/annotation keys of its `metadata` expanded against `resource`;
 * the same object when no wildcard key matches anything.
 */
export function expandMetadataWildcards(pattern: JsonObject, resource: JsonObject): JsonObject {
  const metadataKey = findKey(pattern, "metadata");
  if (metadataKey === undefined) return pattern;
  const patternMetadata = pattern[metadataKey];
  const resourceMetadata = resource.metadata;
  if (!isObject(patternMetadata) || !isObject(resourceMetadata)) return pattern;
  let metadata = patternMetadata;
  for (const tag of ["labels", "annotations"]) {
    const tagKey = findKey(metadata, tag);
    if (tagKey === undefined) continue;
    const patternTags = metadata[tagKey];
    const resourceTags = resourceMetadata[tag];
    if (!isObject(patternTags) || !isObject(resourceTags)) continue;
    const expanded = expandTags(patternTags, Object.keys(resourceTags).sort());
    if (expanded !== patternTags) metadata = { ...metadata, [tagKey]: expanded };
  }
  return metadata === patternMetadata ? pattern : { ...pattern, [metadataKey]: metadata };
}

function expandTags(patternTags: JsonObject, resourceKeys: readonly string[]): JsonObject {
  if (!Object.keys(patternTags).some(hasWildcard)) return patternTags;
  const result: JsonObject = {};
  const expandedKeys: Array<[string, JsonValue]> = [];
  for (const [key, value] of Object.entries(patternTags)) {
    if (!hasWildcard(key)) {
      result[key] = value;
      continue;
    }
    const { kind, key: bare } = parseAnchor(key);
    const matches = resourceKeys.filter((k) => matchWildcard(bare, k));
    if (matches.length === 0) result[key] = value;
    for (const match of matches) expandedKeys.push([anchorWrap(kind, match), value]);
  }
  // Nothing matched: the result would equal the pattern, which callers may keep using as is.
  if (expandedKeys.length === 0) return patternTags;
  // Keys written out explicitly in the pattern take precedence over keys produced by expansion.
  for (const [key, value] of expandedKeys) {
    if (!Object.hasOwn(result, key)) result[key] = value;
  }
  return result;
}

/** The pattern key naming `tag`, with or without an anchor (`labels`, `=(labels)`, …). */
function findKey(map: JsonObject, tag: string): string | undefined {
  if (Object.hasOwn(map, tag)) return tag;
  return Object.keys(map).find((k) => parseAnchor(k).key === tag);
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
