/**
 * One handler per kind of pattern key, as in Kyverno's anchor handlers. Each checks one key of a
 * pattern map against the resource map and returns a failure or `undefined`; nested values go back
 * through the element walker passed in as `walk`.
 */
import type { JsonObject, JsonValue } from "@kyverno-ts/api";
import { type AnchorKind, parseAnchor } from "./anchor.js";
import { type Failure, failure, type WalkState } from "./failure.js";

/** Checks one resource value against one pattern value at `path`. */
export type ElementWalker = (
  resource: JsonValue,
  pattern: JsonValue,
  path: string,
  state: WalkState,
) => Failure | undefined;

/** Checks the pattern entry `patternKey: patternValue` of the map at `path` against `resource`. */
export function checkKey(
  walk: ElementWalker,
  patternKey: string,
  patternValue: JsonValue,
  resource: JsonObject,
  path: string,
  state: WalkState,
): Failure | undefined {
  const { kind, key } = parseAnchor(patternKey);
  const handler = HANDLERS[kind];
  return handler(
    walk,
    kind === "plain" || kind === "addIfNotPresent" ? patternKey : key,
    patternValue,
    resource,
    path,
    state,
  );
}

type Handler = (
  walk: ElementWalker,
  key: string,
  pattern: JsonValue,
  resource: JsonObject,
  path: string,
  state: WalkState,
) => Failure | undefined;

const CONDITIONAL = "conditional anchor mismatch";
const GLOBAL = "global anchor mismatch";
const NEGATION = "negation anchor matched in resource";

/** A plain key: `*` only needs a non-null value; anything else is checked recursively (missing = null). */
const plain: Handler = (walk, key, pattern, resource, path, state) => {
  const value = resource[key] ?? null;
  if (pattern === "*") {
    return value !== null ? undefined : failure("mismatch", path, `${path}${key} not found`);
  }
  return walk(value, pattern, `${path}${key}/`, state);
};

/** `(key)`: the key must exist and match, otherwise the enclosing branch does not apply. */
const conditional: Handler = (walk, key, pattern, resource, path, state) => {
  const here = `${path}${key}/`;
  if (!Object.hasOwn(resource, key)) {
    return failure(
      "conditional",
      here,
      `${CONDITIONAL}: conditional anchor key doesn't exist in the resource`,
    );
  }
  const inner = walk(resource[key] ?? null, pattern, here, state);
  if (inner === undefined || inner.kind === "invalid") return inner;
  return failure("conditional", inner.path, `${CONDITIONAL}: ${inner.message}`);
};

/** `<(key)`: a present key that does not match skips the whole rule; a missing key is fine. */
const global: Handler = (walk, key, pattern, resource, path, state) => {
  if (!Object.hasOwn(resource, key)) return undefined;
  const inner = walk(resource[key] ?? null, pattern, `${path}${key}/`, state);
  if (inner === undefined || inner.kind === "invalid") return inner;
  return failure("global", inner.path, `${GLOBAL}: ${inner.message}`);
};

/** `=(key)`: if the key is present its value must match; a missing key is fine. */
const equality: Handler = (walk, key, pattern, resource, path, state) => {
  if (!Object.hasOwn(resource, key)) return undefined;
  return walk(resource[key] ?? null, pattern, `${path}${key}/`, state);
};

/** `X(key)`: the key must not be present at all; its pattern value is never evaluated. */
const negation: Handler = (_walk, key, _pattern, resource, path) => {
  const here = `${path}${key}/`;
  if (!Object.hasOwn(resource, key)) return undefined;
  return failure("negation", here, `${NEGATION}: ${here} is not allowed`);
};

/** `^(key)`: the value must be a list in which every pattern map is matched by at least one element. */
const existence: Handler = (walk, key, pattern, resource, path, state) => {
  const here = `${path}${key}/`;
  if (!Object.hasOwn(resource, key)) return undefined;
  const list = resource[key];
  if (!Array.isArray(list)) {
    return failure("mismatch", here, "existence anchor ^() can be used only on a list/array type resource");
  }
  if (!Array.isArray(pattern)) {
    return failure(
      "mismatch",
      here,
      "existence anchor pattern has to be a list to compare against the resource",
    );
  }
  for (const patternElement of pattern) {
    if (patternElement === null || typeof patternElement !== "object" || Array.isArray(patternElement)) {
      return failure(
        "mismatch",
        here,
        "existence anchor pattern has to contain maps to compare against list items",
      );
    }
    const found = list.some(
      (element, i) => walk(element, patternElement, `${here}${i}/`, state) === undefined,
    );
    if (!found) return failure("mismatch", here, `existence anchor validation failed at path ${here}`);
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
