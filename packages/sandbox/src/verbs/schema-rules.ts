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
import { asObject, metaString } from "../objects/meta.js";
import type { ResourceType } from "../registry/types.js";
import type { ResourceRequest } from "./context.js";

type Schema = JsonObject;

/**
 * The pruned and defaulted object; throws a 422 listing schema violations. Unknown fields left
 * (e.g. added by a mutating webhook after decoding) are pruned as `decodeCustomResource` does.
 */
export function validateCustomResource(
  resource: ResourceType,
  object: JsonObject,
  request: ResourceRequest,
): JsonObject {
  const schema = resource.schema;
  if (schema === undefined) return object;
  const out = decodeCustomResource(resource, object, request);
  const causes: StatusCause[] = [];
  check(out, schema, "", causes, true);
  if (causes.length > 0) throw invalid(resource.group, resource.kind, metaString(object, "name"), causes);
  return out;
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
  const processed = (walk(rest, schema, "", unknown, true) as JsonObject | undefined) ?? {};
  const mode = request.query.get("fieldValidation") ?? "Warn";
  const messages = unknown.map((f) => `unknown field "${f}"`);
  if (messages.length > 0 && mode === "Strict")
    throw badRequest(
      `${resource.kind} in version "${resource.version}" cannot be handled as a ${resource.kind}: strict decoding error: ${messages.join(", ")}`,
    );
  if (mode !== "Ignore") addWarnings(request.res, messages);
  return { apiVersion: apiVersion ?? null, kind: kind ?? null, metadata: metadata ?? {}, ...processed };
}

function properties(schema: Schema): JsonObject {
  return asObject(schema.properties) ?? {};
}

function walk(
  value: JsonValue,
  schema: Schema,
  path: string,
  unknown: string[],
  root = false,
): JsonValue | undefined {
  if (Array.isArray(value)) {
    const items = asObject(schema.items);
    return items === undefined
      ? value
      : value.map((v, i) => walk(v, items, `${path}[${i}]`, unknown) ?? null);
  }
  const object = asObject(value);
  if (object === undefined) return value;
  const props = properties(schema);
  const additional = schema.additionalProperties;
  const preserve = schema["x-kubernetes-preserve-unknown-fields"] === true;
  const out: JsonObject = {};
  for (const [key, v] of Object.entries(object)) {
    if (root && (key === "apiVersion" || key === "kind" || key === "metadata")) continue;
    const sub = asObject(props[key]);
    if (sub !== undefined) out[key] = walk(v, sub, `${path}.${key}`, unknown) ?? null;
    else if (asObject(additional) !== undefined)
      out[key] = walk(v, additional as Schema, `${path}.${key}`, unknown) ?? null;
    else if (preserve || additional === true) out[key] = v;
    else unknown.push(`${path}.${key}`.slice(1));
  }
  for (const [key, sub] of Object.entries(props)) {
    const s = asObject(sub);
    if (s === undefined || out[key] !== undefined || s.default === undefined) continue;
    if (root && key === "metadata") continue;
    out[key] = walk(structuredClone(s.default), s, `${path}.${key}`, []) ?? null;
  }
  return out;
}

function typeOf(value: JsonValue): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

function field(path: string): string {
  return path.startsWith(".") ? path.slice(1) : path;
}

function check(value: JsonValue, schema: Schema, path: string, causes: StatusCause[], root = false): void {
  const type = typeof schema.type === "string" ? schema.type : "";
  const actual = typeOf(value);
  if (value === null) {
    if (schema.nullable !== true && type !== "")
      causes.push(
        fieldInvalid(field(path), "null", `${field(path)} in body must be of type ${type}: "null"`),
      );
    return;
  }
  if (schema["x-kubernetes-int-or-string"] === true) {
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
  if (Array.isArray(schema.enum) && !schema.enum.some((e) => JSON.stringify(e) === JSON.stringify(value)))
    causes.push(
      fieldNotSupported(
        field(path),
        value,
        schema.enum.map((e) => (typeof e === "string" ? e : JSON.stringify(e))),
      ),
    );
  if (typeof value === "string") checkString(value, schema, path, causes);
  if (typeof value === "number") checkNumber(value, schema, path, causes);
  if (Array.isArray(value)) {
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
    const items = asObject(schema.items);
    if (items !== undefined) for (const [i, v] of value.entries()) check(v, items, `${path}[${i}]`, causes);
    return;
  }
  const object = asObject(value);
  if (object === undefined) return;
  if (Array.isArray(schema.required))
    for (const r of schema.required)
      if (typeof r === "string" && object[r] === undefined)
        causes.push(fieldRequired(field(`${path}.${r}`), ""));
  const props = properties(schema);
  for (const [key, v] of Object.entries(object)) {
    if (root && (key === "metadata" || key === "apiVersion" || key === "kind")) continue;
    const sub = asObject(props[key]) ?? asObject(schema.additionalProperties);
    if (sub !== undefined) check(v, sub, `${path}.${key}`, causes);
  }
}

function checkString(value: string, schema: Schema, path: string, causes: StatusCause[]): void {
  const f = field(path);
  if (typeof schema.maxLength === "number" && value.length > schema.maxLength)
    causes.push({
      reason: "FieldValueTooLong",
      message: `Too long: may not be more than ${schema.maxLength} bytes`,
      field: f,
    });
  if (typeof schema.minLength === "number" && value.length < schema.minLength)
    causes.push(fieldInvalid(f, value, `${f} in body should be at least ${schema.minLength} chars long`));
  if (typeof schema.pattern === "string") {
    let re: RegExp | undefined;
    try {
      re = new RegExp(schema.pattern, "u");
    } catch {
      re = undefined;
    }
    if (re !== undefined && !re.test(value))
      causes.push(fieldInvalid(f, value, `${f} in body should match '${schema.pattern}'`));
  }
}

function checkNumber(value: number, schema: Schema, path: string, causes: StatusCause[]): void {
  const f = field(path);
  if (typeof schema.maximum === "number" && value > schema.maximum)
    causes.push(fieldInvalid(f, value, `${f} in body should be less than or equal to ${schema.maximum}`));
  if (typeof schema.minimum === "number" && value < schema.minimum)
    causes.push(fieldInvalid(f, value, `${f} in body should be greater than or equal to ${schema.minimum}`));
}
