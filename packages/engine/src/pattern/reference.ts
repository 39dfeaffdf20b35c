/**
 * `$(path)` references in pattern values: `$(./../../limits/memory)` is replaced by the value found at
 * that path in the pattern itself (the policy, not the resource), relative to the field that holds
 * the reference; `/spec/...` is taken from the pattern root. An operator may lead the path:
 * `$(<=./../limit)` yields `<=` followed by the referenced value. Anchors are ignored in paths.
 */
import type { JsonValue } from "@kyverno-ts/api";
import { stripAnchor } from "./anchor.js";
import { formatGoFixed } from "./go-strconv.js";
import type { ScalarPattern } from "./scalar.js";
import { operatorOf } from "./string-operator.js";

/** The outcome of resolving references in one pattern string. */
export type ReferenceResolution = { ok: true; value: ScalarPattern } | { ok: false; message: string };

const EMBEDDED_REFERENCE = /(^|[^\\])\$\(([^()\s]+)\)/;

/** True when the string contains a `$(...)` reference that is not escaped as `\$(`. */
export function hasReference(s: string): boolean {
  return EMBEDDED_REFERENCE.test(s);
}

/**
 * Resolves every reference in `text`, which sits at `path` (`/spec/containers/0/name/`) of `origin`.
 * A string that is a single reference without an operator takes the referenced value with its type;
 * otherwise references are spliced in as text.
 */
export function resolveReferences(text: string, path: string, origin: JsonValue): ReferenceResolution {
  if (text.startsWith("$(") && text.endsWith(")") && !text.slice(2, -1).includes("$(")) {
    return resolveOne(trimReferenceChars(text), path, origin, true);
  }
  let failure: string | undefined;
  const replaced = text.replace(
    new RegExp(EMBEDDED_REFERENCE.source, "g"),
    (_all, lead: string, inner: string) => {
      const resolved = resolveOne(inner, path, origin, false);
      if (!resolved.ok) {
        failure ??= resolved.message;
        return "";
      }
      return `${lead}${String(resolved.value)}`;
    },
  );
  return failure === undefined ? { ok: true, value: replaced } : { ok: false, message: failure };
}

function resolveOne(
  reference: string,
  path: string,
  origin: JsonValue,
  keepType: boolean,
): ReferenceResolution {
  const op = operatorOf(reference);
  const target = reference.slice(op.length);
  if (target === "") return { ok: false, message: "expected path, found empty reference" };
  const absolute = target.startsWith("/") ? target : joinPath(path, target);
  const found = lookup(origin, absolute);
  if (found === undefined || found === null) {
    return { ok: false, message: `reference $(${reference}) at path ${path} not found in the pattern` };
  }
  if (typeof found === "object") {
    return { ok: false, message: `reference $(${reference}) at path ${path} does not point to a scalar` };
  }
  if (op === "" && keepType) return { ok: true, value: found };
  const textValue = typeof found === "number" ? formatGoFixed(found) : String(found);
  return { ok: true, value: `${op}${textValue}` };
}

/** Go `strings.Trim(s, "$()")`. */
function trimReferenceChars(s: string): string {
  const strip = (c: string | undefined) => c === "$" || c === "(" || c === ")";
  let start = 0;
  let end = s.length;
  while (start < end && strip(s[start])) start++;
  while (end > start && strip(s[end - 1])) end--;
  return s.slice(start, end);
}

/** `path.Join(base, relative)`: the base path is treated as a directory, `.` and `..` are resolved. */
function joinPath(base: string, relative: string): string {
  const segments = base.split("/").filter((s) => s !== "");
  for (const part of relative.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") segments.pop();
    else segments.push(part);
  }
  return `/${segments.join("/")}`;
}

function lookup(root: JsonValue, absolute: string): JsonValue | undefined {
  let node: JsonValue | undefined = root;
  for (const segment of absolute.split("/").filter((s) => s !== "")) {
    if (Array.isArray(node)) {
      node = /^\d+$/.test(segment) ? node[Number(segment)] : undefined;
    } else if (node !== null && typeof node === "object") {
      const map: { [key: string]: JsonValue } = node;
      const key = Object.hasOwn(map, segment)
        ? segment
        : Object.keys(map).find((k) => stripAnchor(k) === segment);
      node = key === undefined ? undefined : map[key];
    } else {
      return undefined;
    }
    if (node === undefined) return undefined;
  }
  return node;
}
