/**
 * Decoding of Kubernetes protobuf request bodies: the `k8s\0` magic followed by a runtime.Unknown
 * envelope (1: TypeMeta, 2: raw message, 3: contentEncoding, 4: contentType) whose raw bytes are the
 * object. kubectl's typed `create` generators send these and do not fall back to JSON, so every kind
 * they create is decoded, into the same JSON `kubectl create … --dry-run=client -o json` prints.
 * Kinds without a schema get a 415 (the caller's job); a malformed body gets a 400.
 */
import type { JsonObject } from "@kyverno-ts/api";
import { AUTH_KINDS } from "./protobuf-auth.js";
import { CORE_KINDS } from "./protobuf-core.js";
import { GROUP_KINDS } from "./protobuf-groups.js";
import { DELETE_OPTIONS, TYPE_META } from "./protobuf-meta.js";
import { decodeMessage, type Schema } from "./protobuf-schema.js";
import { readFields, WireError, wireTypeOf } from "./protobuf-wire.js";
import { type ApiError, badRequest } from "./status.js";

const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

const KINDS: Readonly<Record<string, Schema>> = { ...CORE_KINDS, ...GROUP_KINDS, ...AUTH_KINDS };

/** The `apiVersion/kind`s whose protobuf encoding is decoded. */
export const PROTOBUF_KINDS: readonly string[] = Object.keys(KINDS);

/** Whether a body starts with the protobuf envelope magic. */
export function isProtobufEnvelope(body: Buffer): boolean {
  return body.length >= 4 && body.subarray(0, 4).equals(MAGIC);
}

/**
 * Decodes an envelope into a JSON object, or `undefined` when its kind has no schema here.
 * Throws a 400 `ApiError` for a malformed body, worded as kube-apiserver words decode failures:
 * `<Kind> in version "<v>" cannot be handled as a <Kind>: <why>` once the envelope's type is
 * known, `the object provided is unrecognized (must be of type <expected>): <why>` before.
 */
export function decodeProtobuf(body: Buffer, expected?: string): JsonObject | undefined {
  let envelope: { typeMeta: Buffer; raw: Buffer };
  try {
    envelope = readEnvelope(body.subarray(MAGIC.length));
  } catch (e) {
    const must = expected === undefined ? "" : ` (must be of type ${expected})`;
    throw malformed(e, (why) => `the object provided is unrecognized${must}: ${why}`);
  }
  let apiVersion = "";
  let kind = "";
  try {
    const tm = decodeMessage(envelope.typeMeta, TYPE_META);
    apiVersion = typeof tm.apiVersion === "string" ? tm.apiVersion : "";
    kind = typeof tm.kind === "string" ? tm.kind : "";
    const schema = KINDS[`${apiVersion}/${kind}`];
    if (schema === undefined) return undefined;
    return { apiVersion, kind, ...decodeMessage(envelope.raw, schema) };
  } catch (e) {
    const version = apiVersion.slice(apiVersion.indexOf("/") + 1);
    const target = expected ?? kind;
    throw malformed(e, (why) => `${kind} in version "${version}" cannot be handled as a ${target}: ${why}`);
  }
}

/**
 * Decodes a protobuf DeleteOptions body (the envelope's TypeMeta is `meta.k8s.io/v1` or the resource's
 * group version, depending on the client, so it is not checked). A malformed body is a 400.
 */
export function decodeDeleteOptionsProtobuf(body: Buffer): JsonObject {
  try {
    const envelope = readEnvelope(body.subarray(MAGIC.length));
    return { kind: "DeleteOptions", ...decodeMessage(envelope.raw, DELETE_OPTIONS) };
  } catch (e) {
    throw malformed(
      e,
      (why) => `the object provided is unrecognized (must be of type DeleteOptions): ${why}`,
    );
  }
}

function readEnvelope(data: Buffer): { typeMeta: Buffer; raw: Buffer } {
  if (data.length === 0) throw new WireError("empty body");
  let typeMeta: Buffer = Buffer.alloc(0);
  let raw: Buffer = Buffer.alloc(0);
  for (const f of readFields(data)) {
    if (f.num !== 1 && f.num !== 2) continue;
    if (f.wire !== "bytes")
      throw new WireError(
        `proto: wrong wireType = ${wireTypeOf(f)} for field ${f.num === 1 ? "TypeMeta" : "Raw"}`,
      );
    if (f.num === 1) typeMeta = f.value;
    else raw = f.value;
  }
  return { typeMeta, raw };
}

function malformed(e: unknown, message: (why: string) => string): ApiError {
  if (e instanceof WireError || e instanceof RangeError) return badRequest(message(e.message));
  throw e;
}
