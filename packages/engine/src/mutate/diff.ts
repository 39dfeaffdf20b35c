/** RFC 6902 diff between two documents: the patch an admission webhook returns for a mutation. */
import type { JsonObject, JsonValue } from "@kyverno-ts/api";
import { appendPointer, isObject, jsonEqual } from "@kyverno-ts/k8s";

/**
 * The RFC 6902 operations that turn `before` into `after`. Maps are compared key by key (changed keys
 * in `after`'s order, then removals); lists keep their common head and tail, and the differing middle
 * is diffed element by element, then shortened or extended at its end — so an element inserted or
 * removed anywhere costs one operation. Deterministic; applying the result with `applyJson6902`
 * yields `after`. Values in the operations share structure with `after`.
 */
export function diffJson6902(before: JsonValue, after: JsonValue): JsonValue[] {
  const ops: JsonValue[] = [];
  diffValue(before, after, "", ops);
  return ops;
}

function diffValue(before: JsonValue, after: JsonValue, path: string, ops: JsonValue[]): void {
  if (jsonEqual(before, after)) return;
  if (isObject(before) && isObject(after)) diffMap(before, after, path, ops);
  else if (Array.isArray(before) && Array.isArray(after)) diffList(before, after, path, ops);
  else ops.push({ op: "replace", path, value: after });
}

function diffMap(before: JsonObject, after: JsonObject, path: string, ops: JsonValue[]): void {
  for (const [key, value] of Object.entries(after)) {
    const old = before[key];
    if (!Object.hasOwn(before, key) || old === undefined)
      ops.push({ op: "add", path: appendPointer(path, key), value });
    else if (old !== value) diffValue(old, value, appendPointer(path, key), ops);
  }
  for (const key of Object.keys(before)) {
    if (!Object.hasOwn(after, key)) ops.push({ op: "remove", path: appendPointer(path, key) });
  }
}

function diffList(before: JsonValue[], after: JsonValue[], path: string, ops: JsonValue[]): void {
  let head = 0;
  const shortest = Math.min(before.length, after.length);
  while (head < shortest && jsonEqual(before[head], after[head])) head++;
  let tail = 0;
  while (
    tail < shortest - head &&
    jsonEqual(before[before.length - 1 - tail], after[after.length - 1 - tail])
  ) {
    tail++;
  }
  const oldEnd = before.length - tail;
  const newEnd = after.length - tail;
  const common = Math.min(oldEnd, newEnd) - head;
  for (let i = head; i < head + common; i++) {
    diffValue(before[i] ?? null, after[i] ?? null, appendPointer(path, i), ops);
  }
  for (let i = oldEnd - 1; i >= head + common; i--) ops.push({ op: "remove", path: appendPointer(path, i) });
  for (let i = head + common; i < newEnd; i++)
    ops.push({ op: "add", path: appendPointer(path, i), value: after[i] ?? null });
}
