/**
 * Kubernetes `Status` failures, built the way apimachinery's `errors.New…` constructors build them,
 * so clients (`kubectl`, client-go, client-node) print and classify them exactly as for a real server.
 */
import type { JsonObject, JsonValue } from "@kyverno-ts/api";

/** The group and plural resource an error is about (Kubernetes' `GroupResource`). */
export interface GroupResource {
  group: string;
  resource: string;
}

/** One field-level cause inside an `Invalid` (422) status. */
export interface StatusCause {
  reason: string;
  message: string;
  field: string;
}

/** A failure to return to the client: HTTP code, machine-readable reason and the message shown to users. */
export class ApiError {
  constructor(
    readonly code: number,
    readonly reason: string,
    readonly message: string,
    readonly details?: JsonObject,
  ) {}

  /** The `Status` object sent as the response body (or inside an ERROR watch event). */
  toStatus(): JsonObject {
    const status: JsonObject = {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: this.message,
      reason: this.reason,
    };
    if (this.details !== undefined) status.details = this.details;
    status.code = this.code;
    return status;
  }
}

/** `foo` for core resources, `foo.group` otherwise (how messages name a resource). */
export function qualifiedResource(gr: GroupResource): string {
  return gr.group === "" ? gr.resource : `${gr.resource}.${gr.group}`;
}

function resourceDetails(gr: GroupResource, name: string): JsonObject {
  const details: JsonObject = { name };
  if (gr.group !== "") details.group = gr.group;
  details.kind = gr.resource;
  return details;
}

/** 404 `<resource> "<name>" not found`. */
export function notFound(gr: GroupResource, name: string): ApiError {
  return new ApiError(
    404,
    "NotFound",
    `${qualifiedResource(gr)} "${name}" not found`,
    resourceDetails(gr, name),
  );
}

/** 404 for a path that names no served resource. */
export function resourceNotFound(): ApiError {
  return new ApiError(404, "NotFound", "the server could not find the requested resource", {});
}

/** 409 `<resource> "<name>" already exists`. */
export function alreadyExists(gr: GroupResource, name: string): ApiError {
  return new ApiError(
    409,
    "AlreadyExists",
    `${qualifiedResource(gr)} "${name}" already exists`,
    resourceDetails(gr, name),
  );
}

/** 409 optimistic-concurrency failure (stale `resourceVersion`) or failed precondition. */
export function conflict(gr: GroupResource, name: string, why: string): ApiError {
  return new ApiError(
    409,
    "Conflict",
    `Operation cannot be fulfilled on ${qualifiedResource(gr)} "${name}": ${why}`,
    resourceDetails(gr, name),
  );
}

/** The `why` of a conflict on a stale `resourceVersion`. */
export const OBJECT_MODIFIED =
  "the object has been modified; please apply your changes to the latest version and try again";

/** 422 `<Kind> "<name>" is invalid: <causes>`. */
export function invalid(group: string, kind: string, name: string, causes: StatusCause[]): ApiError {
  const text = causes.map((c) => (c.field === "" ? c.message : `${c.field}: ${c.message}`));
  const joined = text.length === 1 ? (text[0] ?? "") : `[${text.join(", ")}]`;
  const details: JsonObject = { name };
  if (group !== "") details.group = group;
  details.kind = kind;
  details.causes = causes.map((c) => ({ reason: c.reason, message: c.message, field: c.field }));
  return new ApiError(
    422,
    "Invalid",
    `${kind}${group === "" ? "" : `.${group}`} "${name}" is invalid: ${joined}`,
    details,
  );
}

/** A 422 cause for an invalid field value (`Invalid value: "x": why`). */
export function fieldInvalid(field: string, value: JsonValue, why: string): StatusCause {
  const shown = typeof value === "string" ? JSON.stringify(value) : JSON.stringify(value);
  return { reason: "FieldValueInvalid", message: `Invalid value: ${shown}: ${why}`, field };
}

/** A 422 cause for a missing field (`Required value: why`). */
export function fieldRequired(field: string, why: string): StatusCause {
  return { reason: "FieldValueRequired", message: `Required value${why === "" ? "" : `: ${why}`}`, field };
}

/** A 422 cause for a forbidden change (`Forbidden: why`). */
export function fieldForbidden(field: string, why: string): StatusCause {
  return { reason: "FieldValueForbidden", message: `Forbidden: ${why}`, field };
}

/** A 422 cause for a value outside an enum (`Unsupported value: "x": supported values: …`). */
export function fieldNotSupported(field: string, value: JsonValue, supported: string[]): StatusCause {
  const list = supported.map((s) => JSON.stringify(s)).join(", ");
  return {
    reason: "FieldValueNotSupported",
    message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${list}`,
    field,
  };
}

/** A 422 cause for a value of the wrong type (`Invalid value: "x": must be of type T`). */
export function fieldTypeInvalid(field: string, value: JsonValue, type: string): StatusCause {
  return fieldInvalid(
    field,
    typeof value === "object" ? `${typeName(value)}` : value,
    `must be of type ${type}`,
  );
}

function typeName(value: JsonValue): string {
  if (value === null) return "null";
  return Array.isArray(value) ? "array" : "object";
}

/** 400 BadRequest with a message. */
export function badRequest(message: string): ApiError {
  return new ApiError(400, "BadRequest", message);
}

/** 401 for a missing or unknown bearer token. */
export function unauthorized(): ApiError {
  return new ApiError(401, "Unauthorized", "Unauthorized");
}

/** 403 Forbidden about one object (e.g. creating in a terminating namespace). */
export function forbidden(gr: GroupResource, name: string, why: string, cause?: JsonObject): ApiError {
  const details = resourceDetails(gr, name);
  if (cause !== undefined) details.causes = [cause];
  const subject = name === "" ? qualifiedResource(gr) : `${qualifiedResource(gr)} "${name}"`;
  return new ApiError(403, "Forbidden", `${subject} is forbidden: ${why}`, details);
}

/** 405 for a verb the resource does not serve. */
export function methodNotAllowed(): ApiError {
  return new ApiError(
    405,
    "MethodNotAllowed",
    "the server does not allow this method on the requested resource",
    {},
  );
}

/** 406 when the client accepts no media type the server produces. */
export function notAcceptable(): ApiError {
  return new ApiError(
    406,
    "NotAcceptable",
    "only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf",
  );
}

/** 410 for a watch or list from a resource version no longer kept. */
export function expired(message: string): ApiError {
  return new ApiError(410, "Expired", message);
}

/** 413 for a request body or stored object over the size limits. */
export function tooLarge(message: string): ApiError {
  return new ApiError(413, "RequestEntityTooLarge", `Request entity too large: ${message}`);
}

/** 415 for a body (or patch) media type the resource does not accept. */
export function unsupportedMediaType(accepted: string[]): ApiError {
  return new ApiError(
    415,
    "UnsupportedMediaType",
    `the body of the request was in an unknown format - accepted media types include: ${accepted.join(", ")}`,
  );
}

/** 500 for an unexpected failure inside the sandbox. */
export function internalError(message: string): ApiError {
  return new ApiError(500, "InternalError", `Internal error occurred: ${message}`, { causes: [{ message }] });
}

/** 504 for a resource version from the future (the real server gives up after waiting). */
export function timeout(message: string): ApiError {
  return new ApiError(504, "Timeout", message, { retryAfterSeconds: 1 });
}

/** What a denied request asked for (kube-apiserver's authorization attributes). */
export type DeniedRequest =
  | {
      kind: "resource";
      verb: string;
      group: string;
      resource: string;
      subresource: string;
      namespace: string;
      name: string;
    }
  | { kind: "nonResource"; verb: string; path: string };

/**
 * 403 for a request the authorizer denied, worded as kube-apiserver's `ForbiddenStatusError`:
 * `pods "web" is forbidden: User "x" cannot get resource "pods" in API group "" in the namespace "prod"`,
 * `forbidden: User "x" cannot get path "/metrics"`; `reason` (the authorizer's) is appended after `: `.
 */
export function forbiddenRequest(username: string, request: DeniedRequest, reason = ""): ApiError {
  let why: string;
  if (request.kind === "nonResource") {
    why = `User ${JSON.stringify(username)} cannot ${request.verb} path ${JSON.stringify(request.path)}`;
  } else {
    const resource =
      request.subresource === "" ? request.resource : `${request.resource}/${request.subresource}`;
    const scope =
      request.namespace === ""
        ? "at the cluster scope"
        : `in the namespace ${JSON.stringify(request.namespace)}`;
    why = `User ${JSON.stringify(username)} cannot ${request.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(request.group)} ${scope}`;
  }
  if (reason !== "") why = `${why}: ${reason}`;
  if (request.kind === "nonResource") return new ApiError(403, "Forbidden", `forbidden: ${why}`, {});
  const gr = { group: request.group, resource: request.resource };
  const subject =
    request.name === "" ? qualifiedResource(gr) : `${qualifiedResource(gr)} ${JSON.stringify(request.name)}`;
  const details: JsonObject = {};
  if (request.name !== "") details.name = request.name;
  if (request.group !== "") details.group = request.group;
  if (request.resource !== "") details.kind = request.resource;
  return new ApiError(403, "Forbidden", `${subject} is forbidden: ${why}`, details);
}
