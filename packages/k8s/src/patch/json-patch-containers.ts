/**
 * The container operations of evanphx/json-patch (v5), which upstream Kyverno applies with
 * `SupportNegativeIndices`, `AllowMissingPathOnRemove` and `EnsurePathExistsOnAdd`. They work in
 * place on a private copy of the document and return an error message, or `undefined` on success.
 */
import type { JsonObject, JsonValue } from "@kyverno-ts/api";
import { isObject, jsonTypeName } from "../json/json.js";

/** A map or a list: what a JSON pointer can step into. */
export type Container = JsonObject | JsonValue[];

/** Go's `strconv.Atoi`, for array index tokens. */
function parseIndex(token: string): number | undefined {
  return /^[+-]?\d+$/.test(token) ? Number.parseInt(token, 10) : undefined;
}

/** True for a JSON map or list. */
export function isContainer(value: JsonValue | undefined): value is Container {
  return Array.isArray(value) || isObject(value);
}

/** The child at `token`; negative indices count from the end. `undefined` when there is none. */
export function getChild(container: Container, token: string): JsonValue | undefined {
  if (!Array.isArray(container)) return Object.hasOwn(container, token) ? container[token] : undefined;
  let index = parseIndex(token);
  if (index === undefined) return undefined;
  if (index < 0) index += container.length;
  return index >= 0 && index < container.length ? container[index] : undefined;
}

/** The container holding the last token of `tokens` (which must not be empty), or `undefined`. */
export function findParent(root: JsonValue, tokens: readonly string[]): Container | undefined {
  let current: JsonValue | undefined = root;
  for (const token of tokens.slice(0, -1)) {
    if (!isContainer(current)) return undefined;
    current = getChild(current, token);
  }
  return isContainer(current) ? current : undefined;
}

/** RFC 6902 `add` into a container: sets a map key, or inserts into a list (`-` and `-1` append). */
export function addChild(container: Container, token: string, value: JsonValue): string | undefined {
  if (!Array.isArray(container)) {
    container[token] = value;
    return undefined;
  }
  if (token === "-") {
    container.push(value);
    return undefined;
  }
  let index = parseIndex(token);
  if (index === undefined) return `value was not a proper array index: '${token}'`;
  const size = container.length + 1;
  if (index >= size || index < -size) return `Unable to access invalid index: ${index}`;
  if (index < 0) index += size;
  container.splice(index, 0, value);
  return undefined;
}

/** RFC 6902 `remove`; a missing key or index is an error only when `allowMissing` is false. */
export function removeChild(container: Container, token: string, allowMissing: boolean): string | undefined {
  if (!Array.isArray(container)) {
    if (!Object.hasOwn(container, token))
      return allowMissing ? undefined : `unable to remove nonexistent key: ${token}`;
    delete container[token];
    return undefined;
  }
  let index = parseIndex(token);
  if (index === undefined) return `value was not a proper array index: '${token}'`;
  if (index < 0) index += container.length;
  if (index < 0 || index >= container.length) {
    return allowMissing ? undefined : `Unable to access invalid index: ${token}`;
  }
  container.splice(index, 1);
  return undefined;
}

/** Overwrites an existing child (the caller checked it exists). */
export function setChild(container: Container, token: string, value: JsonValue): string | undefined {
  if (!Array.isArray(container)) {
    container[token] = value;
    return undefined;
  }
  let index = parseIndex(token);
  if (index === undefined) return `value was not a proper array index: '${token}'`;
  if (index < 0) index += container.length;
  if (index < 0 || index >= container.length) return `Unable to access invalid index: ${token}`;
  container[index] = value;
  return undefined;
}

/**
 * Creates the missing parents of `tokens` before an `add` (json-patch's `EnsurePathExistsOnAdd`):
 * a parent followed by a numeric token (or `-`) becomes a list padded with nulls up to that index
 * (`-1` means the end), any other parent a map. Lists shorter than a numeric token are padded with nulls.
 */
export function ensurePath(root: JsonValue, tokens: readonly string[]): string | undefined {
  let current: JsonValue | undefined = root;
  for (const [i, token] of tokens.slice(0, -1).entries()) {
    if (!isContainer(current)) return `cannot create ${token} inside a ${jsonTypeName(current)}`;
    const child = getChild(current, token);
    if (child !== undefined && child !== null) {
      current = child;
      continue;
    }
    const index = parseIndex(token);
    if (Array.isArray(current) && index !== undefined && index > current.length) {
      while (current.length < index) current.push(null);
    }
    const next = tokens[i + 1] ?? "";
    const nextIndex = parseIndex(next);
    let created: Container;
    if (nextIndex !== undefined || next === "-") {
      if (nextIndex !== undefined && nextIndex < -1) {
        return `Unable to ensure path for negative index other than -1: ${nextIndex}`;
      }
      created = new Array<JsonValue>(Math.max(nextIndex ?? 0, 0)).fill(null);
    } else {
      created = {};
    }
    const error = child === null ? setChild(current, token, created) : addChild(current, token, created);
    if (error !== undefined) return error;
    current = created;
  }
  return undefined;
}
