import type { JsonValue } from "@kyverno-ts/api";

/** The JSON document that JMESPath expressions in a rule are evaluated against. */
export type JsonContext = { [key: string]: JsonValue };

/**
 * Sets a value at a dotted path (`request.operation`, `element.name`) copying every object on the
 * way, so contexts shared with a parent (foreach iterations, other rules) are never modified.
 * Returns the new root.
 */
export function withValue(root: JsonContext, dottedKey: string, value: JsonValue): JsonContext {
  const keys = dottedKey.split(".");
  return setPath(root, keys, value) as JsonContext;
}

function setPath(node: JsonValue | undefined, keys: string[], value: JsonValue): JsonValue {
  const [head, ...rest] = keys;
  if (head === undefined) return value;
  const base = node !== null && typeof node === "object" && !Array.isArray(node) ? node : {};
  return { ...base, [head]: setPath(base[head], rest, value) };
}

/** Applies several dotted-key values in order; later keys override earlier ones. */
export function withValues(root: JsonContext, values: Record<string, JsonValue> | undefined): JsonContext {
  if (!values) return root;
  let out = root;
  for (const [key, value] of Object.entries(values)) out = withValue(out, key, value);
  return out;
}
