/**
 * RFC 6902 JSON patch as evanphx/json-patch (v5) applies it: `/-` append, `~0`/`~1` escaping, negative
 * indices. By default strict, as kube-apiserver applies a `json-patch+json` PATCH: removing a missing
 * path and adding under a missing parent are errors. Kyverno's mutate rules switch both leniencies on.
 */
import type { JsonObject, JsonValue } from "@kyverno-ts/api";
import { cloneJson, isObject, jsonEqual } from "../json/json.js";
import { parsePointer } from "../json/pointer.js";
import {
  addChild,
  type Container,
  ensurePath,
  findParent,
  getChild,
  isContainer,
  removeChild,
  setChild,
} from "./json-patch-containers.js";

/** The patched value, or why the patch could not be applied. */
export type PatchResult = { ok: true; value: JsonValue } | { ok: false; error: string };

/**
 * Leniencies of evanphx/json-patch. Both default to `false` (kube-apiserver): `remove` of a path that
 * does not exist fails, and `add` needs the parent to exist. Negative indices always count from the end.
 */
export interface JsonPatchOptions {
  /** `remove` of a missing path does nothing. */
  allowMissingPathOnRemove?: boolean;
  /** `add` creates missing parents (`/a/b/-1/c` on an empty document builds `{a: {b: [{c: …}]}}`). */
  ensurePathExistsOnAdd?: boolean;
}

const OPS = new Set(["add", "remove", "replace", "move", "copy", "test"]);

/**
 * Applies RFC 6902 operations to a copy of `resource`.
 * Supports `/-` append, `~0`/`~1` escaping and negative indices; the first invalid operation or path
 * makes the whole patch fail with its index and reason. Never throws; `resource` is not modified.
 */
export function applyJsonPatch(
  resource: JsonValue,
  ops: JsonValue,
  options: JsonPatchOptions = {},
): PatchResult {
  if (!Array.isArray(ops)) return { ok: false, error: "a JSON patch must be a list of operations" };
  const settings = {
    allowMissingPathOnRemove: options.allowMissingPathOnRemove ?? false,
    ensurePathExistsOnAdd: options.ensurePathExistsOnAdd ?? false,
  };
  const doc = { root: cloneJson(resource) };
  for (const [i, op] of ops.entries()) {
    const error = isObject(op) ? applyOperation(doc, op, settings) : "an operation must be a map";
    if (error !== undefined) {
      const what = isObject(op) ? ` (${String(op.op)} ${String(op.path)})` : "";
      return { ok: false, error: `failed to apply JSON patch operation ${i}${what}: ${error}` };
    }
  }
  return { ok: true, value: doc.root };
}

interface Settings {
  allowMissingPathOnRemove: boolean;
  ensurePathExistsOnAdd: boolean;
}

interface Doc {
  root: JsonValue;
}

function pointerOf(op: JsonObject, field: "path" | "from"): string[] | string {
  const raw = op[field];
  if (typeof raw !== "string") return `missing "${field}"`;
  return parsePointer(raw) ?? `${field} ${JSON.stringify(raw)} must begin with a forward slash`;
}

function applyOperation(doc: Doc, op: JsonObject, settings: Settings): string | undefined {
  const name = op.op;
  if (typeof name !== "string" || !OPS.has(name))
    return `unexpected operation ${JSON.stringify(name ?? null)}`;
  const path = pointerOf(op, "path");
  if (typeof path === "string") return path;
  const hasValue = Object.hasOwn(op, "value");
  const value = op.value ?? null;
  switch (name) {
    case "add":
      if (!hasValue) return `missing "value"`;
      return add(doc, path, cloneJson(value), settings.ensurePathExistsOnAdd);
    case "remove":
      return remove(doc, path, settings.allowMissingPathOnRemove);
    case "replace":
      if (!hasValue) return `missing "value"`;
      return replace(doc, path, cloneJson(value));
    case "test":
      return test(doc.root, path, value);
    default: {
      const from = pointerOf(op, "from");
      if (typeof from === "string") return from;
      return name === "move" ? move(doc, from, path) : copy(doc, from, path);
    }
  }
}

function add(doc: Doc, path: string[], value: JsonValue, ensure: boolean): string | undefined {
  const key = path.at(-1);
  if (key === undefined) {
    doc.root = value;
    return undefined;
  }
  if (ensure) {
    const error = ensurePath(doc.root, path);
    if (error !== undefined) return error;
  }
  const parent = findParent(doc.root, path);
  if (parent === undefined) return "add operation does not apply: doc is missing path";
  return addChild(parent, key, value);
}

function remove(doc: Doc, path: string[], allowMissing: boolean): string | undefined {
  const key = path.at(-1);
  if (key === undefined) return "cannot remove the whole document";
  const parent = findParent(doc.root, path);
  if (parent === undefined)
    return allowMissing ? undefined : "remove operation does not apply: doc is missing path";
  return removeChild(parent, key, allowMissing);
}

function replace(doc: Doc, path: string[], value: JsonValue): string | undefined {
  const key = path.at(-1);
  if (key === undefined) {
    doc.root = value;
    return undefined;
  }
  const parent = findParent(doc.root, path);
  if (parent === undefined) return "replace operation does not apply: doc is missing path";
  if (getChild(parent, key) === undefined) return "replace operation does not apply: doc is missing key";
  return setChild(parent, key, value);
}

function test(root: JsonValue, path: string[], expected: JsonValue): string | undefined {
  const actual = valueAt(root, path);
  if (actual === undefined ? expected === null : jsonEqual(actual, expected)) return undefined;
  return "testing value failed";
}

function move(doc: Doc, from: string[], path: string[]): string | undefined {
  const prefix = from.join("/");
  if (path.join("/") === prefix) return undefined;
  if (path.join("/").startsWith(`${prefix}/`)) return "cannot move a value into one of its own children";
  const located = locate(doc.root, from);
  if (located === undefined) return "move operation does not apply: doc is missing from path";
  const removed = removeChild(located.parent, located.key, false);
  if (removed !== undefined) return removed;
  return add(doc, path, located.value, false);
}

function copy(doc: Doc, from: string[], path: string[]): string | undefined {
  const located = from.length === 0 ? { value: doc.root } : locate(doc.root, from);
  if (located === undefined) return "copy operation does not apply: doc is missing from path";
  return add(doc, path, cloneJson(located.value), false);
}

function locate(
  root: JsonValue,
  path: string[],
): { parent: Container; key: string; value: JsonValue } | undefined {
  const key = path.at(-1);
  if (key === undefined) return undefined;
  const parent = findParent(root, path);
  const value = parent === undefined ? undefined : getChild(parent, key);
  return parent === undefined || value === undefined ? undefined : { parent, key, value };
}

function valueAt(root: JsonValue, path: string[]): JsonValue | undefined {
  let current: JsonValue | undefined = root;
  for (const token of path) {
    if (!isContainer(current)) return undefined;
    current = getChild(current, token);
  }
  return current;
}
