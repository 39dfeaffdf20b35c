/**
 * Kubernetes strategic merge of an anchor-free patch into a resource, in one of two styles. As
 * kustomize's kyaml merge (which upstream Kyverno runs) does it: maps merge recursively, `null` deletes,
 * lists with a merge key merge element by element (matched elements stay in place, new ones are
 * prepended in patch order), lists of scalars with a merge strategy are unions, every other list is
 * replaced; a merged map left empty is dropped. As kube-apiserver (apimachinery's strategicpatch) does
 * it: the same, but new elements and scalars are appended after the original ones and empty maps stay.
 * Directives: `$patch: replace | delete | merge`, `$deleteFromPrimitiveList/<field>`, `$retainKeys`;
 * `$setElementOrder/<field>` is accepted and ignored.
 */
import type { JsonObject, JsonValue } from "@kyverno-ts/api";
import { isObject, jsonEqual, jsonTypeName } from "../json/json.js";
import { fieldSchema, itemSchema, listStrategy, type PatchSchema } from "./patch-schema.js";

/** A patch that cannot be merged (type clash, missing merge key, unknown directive). */
export class MergeError {
  constructor(readonly message: string) {}
}

/** The merged value; `undefined` when the patch deletes it. */
export type Merged = JsonValue | undefined | MergeError;

/** Whose strategic merge: kustomize's kyaml (Kyverno's mutate rules) or kube-apiserver's (PATCH). */
export type MergeStyle = "kustomize" | "apiserver";

const DIRECTIVE = "$patch";
const RETAIN_KEYS = "$retainKeys";
const DELETE_FROM_PRIMITIVE_LIST = "$deleteFromPrimitiveList/";
const SET_ELEMENT_ORDER = "$setElementOrder/";

/**
 * Merges `patch` into `original` (absent when `undefined`) at `path` (a JSON pointer used in errors).
 * Inputs are never mutated; the result shares unchanged subtrees with both.
 */
export function mergeValue(
  original: JsonValue | undefined,
  patch: JsonValue,
  schema: PatchSchema,
  path: string,
  style: MergeStyle = "kustomize",
): Merged {
  if (isObject(patch)) return mergeMap(original, patch, schema, path, style);
  if (Array.isArray(patch)) return mergeList(original, patch, schema, path, style);
  if (original !== undefined && original !== null && typeof original === "object") {
    return clash(original, patch, path);
  }
  return patch;
}

function clash(original: JsonValue, patch: JsonValue, path: string): MergeError {
  return new MergeError(
    `cannot merge a ${jsonTypeName(patch)} into a ${jsonTypeName(original)} at ${path === "" ? "/" : path}`,
  );
}

function mergeMap(
  original: JsonValue | undefined,
  patch: JsonObject,
  schema: PatchSchema,
  path: string,
  style: MergeStyle,
): Merged {
  if (original !== undefined && original !== null && !isObject(original)) return clash(original, patch, path);
  const base: JsonObject = isObject(original) ? original : {};
  const directive = patch[DIRECTIVE];
  if (directive === "delete") return undefined;
  if (directive === "replace") {
    const { [DIRECTIVE]: _, ...rest } = patch;
    return mergeMap(undefined, rest, schema, path, style);
  }
  if (directive !== undefined && directive !== "merge") {
    return new MergeError(`unknown $patch directive ${JSON.stringify(directive)} at ${path || "/"}`);
  }
  const result: JsonObject = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    if (!key.startsWith(DELETE_FROM_PRIMITIVE_LIST)) continue;
    const field = key.slice(DELETE_FROM_PRIMITIVE_LIST.length);
    const current = result[field];
    if (!Array.isArray(value)) return new MergeError(`${key} must be a list at ${path || "/"}`);
    if (Array.isArray(current))
      result[field] = current.filter((item) => !value.some((v) => jsonEqual(v, item)));
  }
  for (const [key, value] of Object.entries(patch)) {
    if (key === DIRECTIVE || key === RETAIN_KEYS || key.startsWith(SET_ELEMENT_ORDER)) continue;
    if (key.startsWith(DELETE_FROM_PRIMITIVE_LIST)) continue;
    if (value === null) {
      delete result[key];
      continue;
    }
    const merged = mergeValue(result[key], value, fieldSchema(schema, key), `${path}/${key}`, style);
    if (merged instanceof MergeError) return merged;
    if (merged === undefined) delete result[key];
    else if (style === "kustomize" && !Object.hasOwn(base, key) && isEmptyMap(merged) && !isEmptyMap(value))
      continue;
    else result[key] = merged;
  }
  const retain = patch[RETAIN_KEYS];
  if (Array.isArray(retain)) {
    for (const key of Object.keys(result)) if (!retain.includes(key)) delete result[key];
  }
  return result;
}

function mergeList(
  original: JsonValue | undefined,
  patch: JsonValue[],
  schema: PatchSchema,
  path: string,
  style: MergeStyle,
): Merged {
  if (original !== undefined && original !== null && !Array.isArray(original))
    return clash(original, patch, path);
  const base = Array.isArray(original) ? original : [];
  const strategy = listStrategy(schema);
  if (strategy.kind === "replace") return patch;
  const replace = patch.some((e) => isObject(e) && e[DIRECTIVE] === "replace" && Object.keys(e).length === 1);
  const elements = patch.filter(
    (e) => !(isObject(e) && e[DIRECTIVE] === "replace" && Object.keys(e).length === 1),
  );
  if (strategy.kind === "primitives") return mergePrimitives(replace ? [] : base, elements, style);
  return mergeKeyed(replace ? [] : base, elements, strategy.key, itemSchema(schema), path, style);
}

/** The original elements and the new ones (in patch order): kyaml puts the new ones first. */
function joined(base: JsonValue[], added: JsonValue[], style: MergeStyle): JsonValue[] {
  return style === "kustomize" ? [...added, ...base] : [...base, ...added];
}

/** A set union of the original values (in their order) and the new values (in patch order). */
function mergePrimitives(base: JsonValue[], patch: JsonValue[], style: MergeStyle): JsonValue[] {
  const added: JsonValue[] = [];
  for (const value of patch) {
    if (value === null) continue;
    if (base.some((b) => jsonEqual(b, value)) || added.some((a) => jsonEqual(a, value))) continue;
    added.push(value);
  }
  return joined(base, added, style);
}

function mergeKeyed(
  base: JsonValue[],
  patch: JsonValue[],
  key: string,
  items: PatchSchema,
  path: string,
  style: MergeStyle,
): Merged {
  const result = [...base];
  const added: JsonValue[] = [];
  for (const element of patch) {
    if (element === null) continue;
    if (!isObject(element)) {
      return new MergeError(
        `list ${path} is merged on "${key}": element ${JSON.stringify(element)} is not a map`,
      );
    }
    const keyValue = element[key];
    if (keyValue === undefined) {
      return new MergeError(`list ${path} is merged on "${key}": patch element has no "${key}" field`);
    }
    const sameKey = (e: JsonValue): boolean => isObject(e) && jsonEqual(e[key], keyValue);
    const list = result.some(sameKey) ? result : added;
    const index = list.findIndex(sameKey);
    const merged = mergeValue(
      index < 0 ? undefined : list[index],
      element,
      items,
      `${path}/${index < 0 ? "-" : index}`,
      style,
    );
    if (merged instanceof MergeError) return merged;
    const gone = merged === undefined || (style === "kustomize" && isEmptyMap(merged));
    if (index < 0) {
      if (!gone) added.push(merged);
    } else if (gone) list.splice(index, 1);
    else list[index] = merged;
  }
  return joined(result, added, style);
}

function isEmptyMap(value: JsonValue): boolean {
  return isObject(value) && Object.keys(value).length === 0;
}
