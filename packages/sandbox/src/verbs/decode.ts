/** Checks a decoded request body against the resource it was sent to, as the real decoder does. */
import type { JsonObject, JsonValue } from "@kyverno-ts/api";
import { decodeBody, readBody } from "../http/body.js";
import { badRequest } from "../http/status.js";
import { asObject, metadataOf } from "../objects/meta.js";
import { apiVersionOf, type ResourceType } from "../registry/types.js";
import type { ResourceRequest } from "./context.js";

/** Reads and decodes the body of a request as a JSON value. */
export async function readJson(request: ResourceRequest, what: string): Promise<JsonValue> {
  const body = await readBody(request.req);
  return decodeBody(body, request.req.headers["content-type"] ?? "application/json", what);
}

/**
 * The body as an object of the resource's kind: missing `apiVersion`/`kind` default to the URL's, a
 * different kind or group/version is a 400, and a namespace that differs from the URL's is a 400.
 */
export function asResourceObject(
  request: ResourceRequest,
  value: JsonValue,
  expectKind?: { apiVersion: string; kind: string },
): JsonObject {
  const resource = request.resource;
  const object = asObject(value);
  const apiVersion = expectKind?.apiVersion ?? apiVersionOf(resource);
  const kind = expectKind?.kind ?? resource.kind;
  if (object === undefined)
    throw badRequest(
      `the object provided is unrecognized (must be of type ${kind}): couldn't get version/kind; json parse error: json: cannot unmarshal ${Array.isArray(value) ? "array" : typeof value} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`,
    );
  const out: JsonObject = {
    apiVersion: object.apiVersion === undefined || object.apiVersion === "" ? apiVersion : object.apiVersion,
    kind: object.kind === undefined || object.kind === "" ? kind : object.kind,
    ...object,
  };
  if (out.apiVersion === "") out.apiVersion = apiVersion;
  if (out.kind === "") out.kind = kind;
  if (out.kind !== kind)
    throw badRequest(
      `the object provided is unrecognized (must be of type ${kind}): ${String(out.kind)} in version "${String(out.apiVersion)}" cannot be handled as a ${kind}`,
    );
  if (!acceptsApiVersion(resource, String(out.apiVersion), expectKind))
    throw badRequest(
      `the API version in the data (${String(out.apiVersion)}) does not match the expected API version (${apiVersion})`,
    );
  out.metadata = { ...metadataOf(out) };
  if (out.metadata.namespace !== undefined && typeof out.metadata.namespace !== "string")
    throw badRequest("metadata.namespace must be a string");
  if (resource.namespaced && request.namespace !== "") {
    const ns = out.metadata.namespace ?? "";
    if (ns === "") out.metadata.namespace = request.namespace;
    else if (ns !== request.namespace)
      throw badRequest(
        "the namespace of the provided object does not match the namespace sent on the request",
      );
  }
  return out;
}

function acceptsApiVersion(
  resource: ResourceType,
  apiVersion: string,
  expect?: { apiVersion: string },
): boolean {
  if (expect !== undefined) return apiVersion === expect.apiVersion;
  const slash = apiVersion.lastIndexOf("/");
  const group = slash < 0 ? "" : apiVersion.slice(0, slash);
  return group === resource.group;
}
