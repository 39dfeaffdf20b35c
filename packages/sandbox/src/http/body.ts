/** Reading and decoding request bodies with kube-apiserver's size limit (3 MiB). */
import type { IncomingMessage } from "node:http";
import type { JsonValue } from "@kyverno-ts/api";
import { parse } from "yaml";
import { decodeProtobuf, isProtobufEnvelope } from "./protobuf.js";
import { ApiError, badRequest, unsupportedMediaType } from "./status.js";

/** kube-apiserver's `--max-request-body-bytes` default. */
export const MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024;

/** Reads the whole body; a body over the limit is drained (so the 413 reaches the client) and rejected. */
export async function readBody(req: IncomingMessage, limit = MAX_REQUEST_BODY_BYTES): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size <= limit) chunks.push(buf);
  }
  if (size > limit)
    throw new ApiError(413, "RequestEntityTooLarge", `Request entity too large: limit is ${limit}`);
  return Buffer.concat(chunks);
}

/** The media type of a `Content-Type` header without parameters, lower-cased. */
export function mediaType(header: string | undefined): string {
  return (header ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
}

/**
 * Decodes a JSON (or YAML) body; `what` names the expected type in the error, as the real decoder does
 * (`the object provided is unrecognized (must be of type Pod): …`).
 */
export function decodeBody(body: Buffer, contentType: string, what: string): JsonValue {
  const type = mediaType(contentType);
  if (type === "application/vnd.kubernetes.protobuf") {
    const decoded = isProtobufEnvelope(body) ? decodeProtobuf(body, what) : undefined;
    if (decoded !== undefined) return decoded;
  }
  if (type === "application/vnd.kubernetes.protobuf" || type === "application/cbor")
    throw unsupportedMediaType(["application/json", "application/yaml"]);
  const text = body.toString("utf8");
  try {
    if (type === "application/yaml" || type === "application/apply-patch+yaml")
      return parse(text) as JsonValue;
    return JSON.parse(text) as JsonValue;
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    throw badRequest(
      `the object provided is unrecognized (must be of type ${what}): couldn't get version/kind; json parse error: ${why}`,
    );
  }
}
