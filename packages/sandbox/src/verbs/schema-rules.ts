/**
 * Custom resources against their CRD's structural schema, as the apiextensions server does: unknown
 * fields pruned (unless `x-kubernetes-preserve-unknown-fields`), `default`s applied, then types,
 * `required`, `enum`, `nullable`, string/number/list bounds and `pattern` checked (a 422 lists them).
 * CEL `x-kubernetes-validations` and `format` are not evaluated (see the README).
 */
import type { JsonObject, JsonValue } from "@kyverno-ts/api";
import { addWarnings } from "../http/respond.js";
import {
  badRequest,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  invalid,
  type StatusCause,
} from "../http/status.js";
import { metaString } from "../objects/meta.js";
import type { StructuralSchema } from "../registry/structural-schema.js";
import type { ResourceType } from "../registry/types.js";
import type { ResourceRequest } from "./context.js";

/**
 * The pruned and defaulted object; throws a 422 listing schema violations. Unknown fields left
 * (e.g. added by a mutating webhook after decoding) are pruned as `decodeCustomResource` does.
 */
export function validateCustomResource(
  resource: ResourceType,
  object: JsonObject,
  request: ResourceRequest,
): JsonObject {
  if (resource.schema === undefined) return object;
  const out = decodeCustomResource(resource, object, request);
  checkCustomResource(resource, out);
  return out;
}

/**
 * Throws a 422 listing the schema violations of an object `decodeCustomResource` made and nothing
 * changed since (no webhook patched it): pruning and defaulting it again would give the same object.
 */
export function checkCustomResource(resource: ResourceType, object: JsonObject): void {
  const schema = resource.schema;
  if (schema === undefined) return;
  const causes: StatusCause[] = [];
  check(object, schema, [], causes, true);
  if (causes.length > 0) throw invalid(resource.group, resource.kind, metaString(object, "name"), causes);
}

/**
 * The object pruned and defaulted, as kube-apiserver decodes a custom resource before admission:
 * webhooks see the defaults of the request's object as of the stored one (a JSON merge patch that
 * replaces a list drops its defaulted fields; they are defaulted again). Pruned fields follow the
 * request's `fieldValidation`: `Strict` is a 400 (before any webhook, as the decoder refuses it),
 * `Warn` (the default) a warning, `Ignore` nothing.
 */
export function decodeCustomResource(
  resource: ResourceType,
  object: JsonObject,
  request: ResourceRequest,
): JsonObject {
  const schema = resource.schema;
  if (schema === undefined) return object;
  const { metadata, apiVersion, kind, ...rest } = object;
  const unknown: string[] = [];
  const processed = (walk(rest, schema, [], unknown, true) as JsonObject | undefined) ?? {};
  const mode = request.query.get("fieldValidation") ?? "Warn";
  const messages = unknown.map((f) => `unknown field "${f}"`);
  if (messages.length > 0 && mode === "Strict")
    throw badRequest(
      `${resource.kind} in version "${resource.version}" cannot be handled as a ${resource.kind}: strict decoding error: ${messages.join(", ")}`,
    );
  if (mode !== "Ignore") addWarnings(request.res, messages);
  return { apiVersion: apiVersion ?? null, kind: kind ?? null, metadata: metadata ?? {}, ...processed };
}

/** Where a walk is: field names and list indexes, made into text only for a message. */
type Path = Array<string | number>;

/** `a.b[0].c` (with the leading dot of the old format dropped, as the messages show it). */
function field(path: Path, last?: string): string {
  let out = "";
  for (const segment of path) out += typeof segment === "number" ? `[${segment}]` : `.${segment}`;
  if (last !== undefined) out += `.${last}`;
  return out.startsWith(".") ? out.slice(1) : out;
}

function walk(
  value: JsonValue,
  node: StructuralSchema,
  path: Path,
  unknown: string[],
  root = false,
): JsonValue | undefined {
  if (Array.isArray(value)) {
    const items = node.items;
    if (items === undefined) return value;
    const out: JsonValue[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) {
      path.push(i);
      out[i] = walk(value[i] as JsonValue, items, path, unknown) ?? null;
      path.pop();
    }
    return out;
  }
  if (value === null || typeof value !== "object") return value;
  const out: JsonObject = {};
  for (const key in value) {
    if (root && (key === "apiVersion" || key === "kind" || key === "metadata")) continue;
    const v = value[key] as JsonValue;
    const sub = node.props.get(key) ?? node.additional;
    if (sub !== undefined) {
      path.push(key);
      out[key] = walk(v, sub, path, unknown) ?? null;
      path.pop();
    } else if (node.keepUnknown) out[key] = v;
    else unknown.push(field(path, key));
  }
  for (const [key, value, sub] of node.defaults) {
    if (out[key] !== undefined) continue;
    if (root && key === "metadata") continue;
    path.push(key);
    out[key] = walk(structuredClone(value), sub, path, []) ?? null;
    path.pop();
  }
  return out;
}

function typeOf(value: JsonValue): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

function check(
  value: JsonValue,
  node: StructuralSchema,
  path: Path,
  causes: StatusCause[],
  root = false,
): void {
  const { type, schema } = node;
  if (value === null) {
    if (!node.nullable && type !== "")
      causes.push(
        fieldInvalid(field(path), "null", `${field(path)} in body must be of type ${type}: "null"`),
      );
    return;
  }
  const actual = typeOf(value);
  if (node.intOrString) {
    if (actual !== "integer" && actual !== "string")
      causes.push(
        fieldInvalid(
          field(path),
          value,
          `${field(path)} in body must be of type integer,string: "${actual}"`,
        ),
      );
  } else if (type !== "" && actual !== type && !(type === "number" && actual === "integer")) {
    causes.push(
      fieldInvalid(
        field(path),
        actual === "object" || actual === "array" ? actual : value,
        `${field(path)} in body must be of type ${type}: "${actual}"`,
      ),
    );
    return;
  }
  if (node.enumJson !== undefined && !node.enumJson.has(JSON.stringify(value)))
    causes.push(fieldNotSupported(field(path), value, [...node.enumShown]));
  if (typeof value === "string") checkString(value, node, path, causes);
  else if (typeof value === "number") checkNumber(value, schema, path, causes);
  else if (Array.isArray(value)) checkList(value, node, path, causes);
  else if (typeof value === "object") {
    for (const r of node.required) if (value[r] === undefined) causes.push(fieldRequired(field(path, r), ""));
    for (const key in value) {
      if (root && (key === "metadata" || key === "apiVersion" || key === "kind")) continue;
      const sub = node.props.get(key) ?? node.additional;
      if (sub === undefined) continue;
      path.push(key);
      check(value[key] as JsonValue, sub, path, causes);
      path.pop();
    }
  }
}

function checkList(value: JsonValue[], node: StructuralSchema, path: Path, causes: StatusCause[]): void {
  const { schema } = node;
  if (typeof schema.maxItems === "number" && value.length > schema.maxItems)
    causes.push({
      reason: "FieldValueTooMany",
      message: `Too many: ${value.length}: must have at most ${schema.maxItems} items`,
      field: field(path),
    });
  if (typeof schema.minItems === "number" && value.length < schema.minItems)
    causes.push(
      fieldInvalid(
        field(path),
        value.length,
        `${field(path)} in body should have at least ${schema.minItems} items`,
      ),
    );
  const items = node.items;
  if (items === undefined) return;
  for (let i = 0; i < value.length; i++) {
    path.push(i);
    check(value[i] as JsonValue, items, path, causes);
    path.pop();
  }
}

function checkString(value: string, node: StructuralSchema, path: Path, causes: StatusCause[]): void {
  const { schema } = node;
  if (typeof schema.maxLength === "number" && value.length > schema.maxLength)
    causes.push({
      reason: "FieldValueTooLong",
      message: `Too long: may not be more than ${schema.maxLength} bytes`,
      field: field(path),
    });
  if (typeof schema.minLength === "number" && value.length < schema.minLength)
    causes.push(
      fieldInvalid(
        field(path),
        value,
        `${field(path)} in body should be at least ${schema.minLength} chars long`,
      ),
    );
  if (node.pattern !== undefined && !node.pattern.test(value))
    causes.push(fieldInvalid(field(path), value, `${field(path)} in body should match '${schema.pattern}'`));
}

function checkNumber(value: number, schema: JsonObject, path: Path, causes: StatusCause[]): void {
  if (typeof schema.maximum === "number" && value > schema.maximum)
    causes.push(
      fieldInvalid(
        field(path),
        value,
        `${field(path)} in body should be less than or equal to ${schema.maximum}`,
      ),
    );
  if (typeof schema.minimum === "number" && value < schema.minimum)
    causes.push(
      fieldInvalid(
        field(path),
        value,
        `${field(path)} in body should be greater than or equal to ${schema.minimum}`,
      ),
    );
}
