/**
 * AdmissionReview v1 (admission.k8s.io/v1): wire types, a parser that never throws, and the
 * response builders every endpoint uses.
 */
import type { JsonValue, KubeObject } from "@kyverno-ts/api";
import type { Operation, UserInfo } from "@kyverno-ts/engine";
import { ReviewMessages } from "./messages.js";

/** The only AdmissionReview apiVersion this server speaks (webhook configurations declare only v1). */
export const ADMISSION_REVIEW_API_VERSION = "admission.k8s.io/v1";

/** Group, version and kind of the object in a request. */
export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

/** Group, version and resource (plural) addressed by a request. */
export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

/** `AdmissionReview.request`, with the fields the server reads. */
export interface AdmissionRequest {
  uid: string;
  kind: GroupVersionKind;
  resource?: GroupVersionResource;
  subResource?: string;
  requestKind?: GroupVersionKind;
  requestResource?: GroupVersionResource;
  requestSubResource?: string;
  name?: string;
  namespace?: string;
  operation: Operation;
  userInfo?: UserInfo;
  object?: JsonValue;
  oldObject?: JsonValue;
  dryRun?: boolean;
  options?: JsonValue;
}

/** A Kubernetes `Status` as carried in `AdmissionResponse.status` (and in HTTP 400 bodies). */
export interface KubeStatus {
  status?: "Success" | "Failure";
  message?: string;
  reason?: string;
  code?: number;
}

/** `AdmissionReview.response`. `patch` is a base64 RFC 6902 JSON patch. */
export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  status?: KubeStatus;
  patchType?: "JSONPatch";
  patch?: string;
  warnings?: string[];
}

/** An AdmissionReview answer. */
export interface AdmissionReviewResponse {
  apiVersion: typeof ADMISSION_REVIEW_API_VERSION;
  kind: "AdmissionReview";
  response: AdmissionResponse;
}

/** A request validated by `parseAdmissionReview`: the typed request plus its objects as `KubeObject`s. */
export interface ParsedReview {
  request: AdmissionRequest;
  /** The new object (CREATE, UPDATE, CONNECT options); undefined on DELETE. */
  object: KubeObject | undefined;
  /** The existing object (UPDATE, DELETE); undefined on CREATE. */
  oldObject: KubeObject | undefined;
}

/**
 * Outcome of parsing a request body: the review, or why it is unusable plus the request uid when it
 * could be read (so the caller can still answer with an AdmissionReview rather than an HTTP error).
 */
export type ReviewParse =
  | { ok: true; review: ParsedReview }
  | { ok: false; uid: string | undefined; message: string };

const OPERATIONS: ReadonlySet<string> = new Set(["CREATE", "UPDATE", "DELETE", "CONNECT"]);
/** Kubernetes UIDs are UUIDs; anything else read from a broken body is not echoed. */
const UID = /^[0-9A-Za-z][0-9A-Za-z-]{0,63}$/;
const SNIFF_UID = /"uid"\s*:\s*"([0-9A-Za-z][0-9A-Za-z-]{0,63})"/;

type JsonObject = { [key: string]: JsonValue };

function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Reads a request uid from the first bytes of a body that could not be parsed, when one is there. */
export function sniffUid(text: string): string | undefined {
  return SNIFF_UID.exec(text.slice(0, 4096))?.[1];
}

function readGvk(v: JsonValue | undefined): GroupVersionKind | undefined {
  if (!isObject(v)) return undefined;
  const { group = "", version, kind } = v;
  if (typeof group !== "string" || typeof version !== "string" || typeof kind !== "string" || kind === "")
    return undefined;
  return { group, version, kind };
}

function readUserInfo(v: JsonValue | undefined): UserInfo | undefined | false {
  if (v === undefined || v === null) return undefined;
  if (!isObject(v)) return false;
  const out: UserInfo = {};
  if (typeof v.username === "string") out.username = v.username;
  if (typeof v.uid === "string") out.uid = v.uid;
  if (Array.isArray(v.groups)) {
    if (!v.groups.every((g) => typeof g === "string")) return false;
    out.groups = v.groups as string[];
  }
  if (isObject(v.extra)) out.extra = v.extra as Record<string, string[]>;
  return out;
}

function optionalString(v: JsonValue | undefined): string | undefined | false {
  if (v === undefined || v === null) return undefined;
  return typeof v === "string" ? v : false;
}

/** Validates the `request` member; returns an error message or the typed review. */
function readRequest(uid: string, raw: JsonObject): ReviewParse {
  const fail = (message: string): ReviewParse => ({ ok: false, uid, message });
  const kind = readGvk(raw.kind);
  if (!kind) return fail(ReviewMessages.invalidField("request.kind", "an object with version and kind"));
  const operation = raw.operation;
  if (typeof operation !== "string" || !OPERATIONS.has(operation))
    return fail(ReviewMessages.invalidField("request.operation", "CREATE, UPDATE, DELETE or CONNECT"));
  const userInfo = readUserInfo(raw.userInfo);
  if (userInfo === false) return fail(ReviewMessages.invalidField("request.userInfo", "an object"));
  const request: AdmissionRequest = { uid, kind, operation: operation as Operation };
  for (const field of ["name", "namespace", "subResource", "requestSubResource"] as const) {
    const value = optionalString(raw[field]);
    if (value === false) return fail(ReviewMessages.invalidField(`request.${field}`, "a string"));
    if (value !== undefined) request[field] = value;
  }
  if (raw.dryRun !== undefined && raw.dryRun !== null && typeof raw.dryRun !== "boolean")
    return fail(ReviewMessages.invalidField("request.dryRun", "a boolean"));
  if (raw.dryRun === true) request.dryRun = true;
  if (userInfo) request.userInfo = userInfo;
  const requestKind = readGvk(raw.requestKind);
  if (requestKind) request.requestKind = requestKind;
  if (isObject(raw.resource)) request.resource = raw.resource as unknown as GroupVersionResource;
  if (raw.options !== undefined) request.options = raw.options;
  const object = raw.object ?? null;
  const oldObject = raw.oldObject ?? null;
  if (object !== null && !isObject(object))
    return fail(ReviewMessages.invalidField("request.object", "an object"));
  if (oldObject !== null && !isObject(oldObject))
    return fail(ReviewMessages.invalidField("request.oldObject", "an object"));
  if (operation === "DELETE") {
    if (oldObject === null) return fail(ReviewMessages.missingObject("request.oldObject", operation));
  } else if (object === null) {
    return fail(ReviewMessages.missingObject("request.object", operation));
  }
  if (operation === "UPDATE" && oldObject === null)
    return fail(ReviewMessages.missingObject("request.oldObject", operation));
  if (object !== null) request.object = object;
  if (oldObject !== null) request.oldObject = oldObject;
  return {
    ok: true,
    review: {
      request,
      object: object === null || operation === "DELETE" ? undefined : (object as KubeObject),
      oldObject: oldObject === null ? undefined : (oldObject as KubeObject),
    },
  };
}

/**
 * Parses and validates an AdmissionReview v1 body. Never throws: malformed JSON, a wrong apiVersion or
 * kind, a missing request or object all come back as `{ ok: false }` with a message, plus the uid when
 * one could be read.
 */
export function parseAdmissionReview(body: string): ReviewParse {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    return { ok: false, uid: sniffUid(body), message: ReviewMessages.notJson(error) };
  }
  if (!isObject(value)) return { ok: false, uid: undefined, message: ReviewMessages.notAnObject };
  const request = value.request;
  const rawUid = isObject(request) ? request.uid : undefined;
  const uid = typeof rawUid === "string" && UID.test(rawUid) ? rawUid : undefined;
  if (value.apiVersion !== ADMISSION_REVIEW_API_VERSION)
    return { ok: false, uid, message: ReviewMessages.wrongApiVersion(value.apiVersion) };
  if (value.kind !== "AdmissionReview")
    return { ok: false, uid, message: ReviewMessages.wrongKind(value.kind) };
  if (!isObject(request)) return { ok: false, uid: undefined, message: ReviewMessages.noRequest };
  if (uid === undefined) return { ok: false, uid: undefined, message: ReviewMessages.badUid };
  return readRequest(uid, request);
}

/** Wraps a response into an AdmissionReview. */
export function reviewResponse(response: AdmissionResponse): AdmissionReviewResponse {
  return { apiVersion: ADMISSION_REVIEW_API_VERSION, kind: "AdmissionReview", response };
}

/** An allowed answer, with warnings when there are any. */
export function allow(uid: string, warnings: readonly string[] = []): AdmissionReviewResponse {
  const response: AdmissionResponse = { uid, allowed: true };
  if (warnings.length > 0) response.warnings = [...warnings];
  return reviewResponse(response);
}

/** A denial carrying `message` in `status`, as upstream answers (`status: Failure`, no code: the API server uses 403). */
export function deny(uid: string, message: string, code?: number): AdmissionReviewResponse {
  const status: KubeStatus = { status: "Failure", message };
  if (code !== undefined) status.code = code;
  return reviewResponse({ uid, allowed: false, status });
}

/** An allowed answer with a JSON patch (base64 of the RFC 6902 operations), omitted when empty. */
export function allowWithPatch(
  uid: string,
  patch: readonly JsonValue[],
  warnings: readonly string[] = [],
): AdmissionReviewResponse {
  const review = allow(uid, warnings);
  if (patch.length > 0) {
    review.response.patchType = "JSONPatch";
    review.response.patch = Buffer.from(JSON.stringify(patch)).toString("base64");
  }
  return review;
}

const ALLOWED_PREFIX = `{"apiVersion":"${ADMISSION_REVIEW_API_VERSION}","kind":"AdmissionReview","response":{"uid":`;

/**
 * The JSON text of an answer built by this module's builders, as `JSON.stringify` writes it. The
 * common answer (a uid and `allowed`, nothing else) comes from a template; others go through
 * `JSON.stringify`.
 */
export function serializeReview(review: AdmissionReviewResponse): string {
  const r = review.response;
  if (
    r.status === undefined &&
    r.warnings === undefined &&
    r.patch === undefined &&
    r.patchType === undefined &&
    typeof r.uid === "string" &&
    typeof r.allowed === "boolean"
  )
    return `${ALLOWED_PREFIX}${JSON.stringify(r.uid)},"allowed":${r.allowed}}}`;
  return JSON.stringify(review);
}

/** A `Status` body for HTTP errors (requests that are not usable AdmissionReviews). */
export interface StatusBody extends KubeStatus {
  kind: "Status";
  apiVersion: "v1";
}

/** The HTTP answer of an endpoint: 200 with an AdmissionReview, or 400 with a Status when no uid could be read. */
export type HandlerReply =
  | { statusCode: 200; body: AdmissionReviewResponse }
  | { statusCode: 400; body: StatusBody };

/** An HTTP 400 answer with a `Status` body. */
export function statusBody(message: string): HandlerReply {
  return {
    statusCode: 400,
    body: { kind: "Status", apiVersion: "v1", status: "Failure", reason: "BadRequest", code: 400, message },
  };
}
