/**
 * One handler per kind of pattern key, as in Kyverno's anchor handlers. Each checks one compiled key
 * of a pattern map against the resource map and returns a failure or `undefined`; nested values go
 * back through the element walker passed in as `walk`. The map's path is `state.segments`.
 */
import type { JsonObject, JsonValue } from "@kyverno-ts/api";
import type { AnchorKind } from "./anchor.js";
import type { MapEntry, PatternNode } from "./compile.js";
import { enter, type Failure, failure, indexSegment, leave, pathOf, type WalkState } from "./failure.js";

/** Checks one resource value against one compiled pattern node at the path `state.segments`. */
export type ElementWalker = (
  resource: JsonValue,
  pattern: PatternNode,
  state: WalkState,
) => Failure | undefined;

/** Checks the compiled pattern entry of the map at the path `state.segments` against `resource`. */
export function checkKey(
  walk: ElementWalker,
  entry: MapEntry,
  resource: JsonObject,
  state: WalkState,
): Failure | undefined {
  return HANDLERS[entry.anchor](walk, entry, resource, state);
}

type Handler = (
  walk: ElementWalker,
  entry: MapEntry,
  resource: JsonObject,
  state: WalkState,
) => Failure | undefined;

const CONDITIONAL = "conditional anchor mismatch";
const GLOBAL = "global anchor mismatch";
const NEGATION = "negation anchor matched in resource";

/** Walks `value` against the entry's pattern one segment deeper (`key/`). */
function descend(
  walk: ElementWalker,
  entry: MapEntry,
  value: JsonValue,
  state: WalkState,
): Failure | undefined {
  enter(state, entry.segment);
  const result = walk(value, entry.value, state);
  leave(state);
  return result;
}

/** The path of the entry's key below the current map: `/spec/key/`. */
function entryPath(entry: MapEntry, state: WalkState): string {
  return pathOf(state) + entry.segment;
}

/** A plain key: `*` only needs a non-null value; anything else is checked recursively (missing = null). */
const plain: Handler = (walk, entry, resource, state) => {
  const value = resource[entry.key] ?? null;
  const pattern = entry.value;
  if (pattern.type === "scalar" && pattern.value === "*") {
    if (value !== null) return undefined;
    const path = pathOf(state);
    return failure("mismatch", path, `${path}${entry.key} not found`);
  }
  return descend(walk, entry, value, state);
};

/** `(key)`: the key must exist and match, otherwise the enclosing branch does not apply. */
const conditional: Handler = (walk, entry, resource, state) => {
  if (!Object.hasOwn(resource, entry.key)) {
    return failure(
      "conditional",
      entryPath(entry, state),
      `${CONDITIONAL}: conditional anchor key doesn't exist in the resource`,
    );
  }
  const inner = descend(walk, entry, resource[entry.key] ?? null, state);
  if (inner === undefined || inner.kind === "invalid") return inner;
  return failure("conditional", inner.path, `${CONDITIONAL}: ${inner.message}`);
};

/** `<(key)`: a present key that does not match skips the whole rule; a missing key is fine. */
const global: Handler = (walk, entry, resource, state) => {
  if (!Object.hasOwn(resource, entry.key)) return undefined;
  const inner = descend(walk, entry, resource[entry.key] ?? null, state);
  if (inner === undefined || inner.kind === "invalid") return inner;
  return failure("global", inner.path, `${GLOBAL}: ${inner.message}`);
};

/** `=(key)`: if the key is present its value must match; a missing key is fine. */
const equality: Handler = (walk, entry, resource, state) => {
  if (!Object.hasOwn(resource, entry.key)) return undefined;
  return descend(walk, entry, resource[entry.key] ?? null, state);
};

/** `X(key)`: the key must not be present at all; its pattern value is never evaluated. */
const negation: Handler = (_walk, entry, resource, state) => {
  if (!Object.hasOwn(resource, entry.key)) return undefined;
  const here = entryPath(entry, state);
  return failure("negation", here, `${NEGATION}: ${here} is not allowed`);
};

/** `^(key)`: the value must be a list in which every pattern map is matched by at least one element. */
const existence: Handler = (walk, entry, resource, state) => {
  if (!Object.hasOwn(resource, entry.key)) return undefined;
  const list = resource[entry.key];
  if (!Array.isArray(list)) {
    return failure(
      "mismatch",
      entryPath(entry, state),
      "existence anchor ^() can be used only on a list/array type resource",
    );
  }
  const pattern = entry.value;
  if (pattern.type !== "array") {
    return failure(
      "mismatch",
      entryPath(entry, state),
      "existence anchor pattern has to be a list to compare against the resource",
    );
  }
  for (const patternElement of pattern.elements) {
    if (patternElement.type !== "map") {
      return failure(
        "mismatch",
        entryPath(entry, state),
        "existence anchor pattern has to contain maps to compare against list items",
      );
    }
    let found = false;
    enter(state, entry.segment);
    for (let i = 0; i < list.length && !found; i++) {
      enter(state, indexSegment(i));
      found = walk(list[i] as JsonValue, patternElement, state) === undefined;
      leave(state);
    }
    leave(state);
    if (!found) {
      const here = entryPath(entry, state);
      return failure("mismatch", here, `existence anchor validation failed at path ${here}`);
    }
  }
  return undefined;
};

const HANDLERS: Readonly<Record<AnchorKind, Handler>> = {
  plain,
  // `+(key)` only means something in mutate overlays; in validate it is a literal key, as upstream.
  addIfNotPresent: plain,
  conditional,
  global,
  equality,
  negation,
  existence,
};
