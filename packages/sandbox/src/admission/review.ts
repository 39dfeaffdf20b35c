/**
 * The AdmissionReview wire format: building the request (webhookrequest.CreateV1AdmissionReview),
 * decoding the webhook's HTTP answer as client-go does, and verifying the response
 * (webhookrequest.VerifyAdmissionResponse).
 */
import type { JsonObject, JsonValue } from "@kyverno-ts/api";
import { parse as parseYaml } from "yaml";
import { invalidResponse } from "./errors.js";
import type { PostResult } from "./http-client.js";
import type { AdmissionAttributes } from "./types.js";

/** AdmissionReview versions the chain speaks, in the order a webhook's list is searched. */
export type ReviewVersion = "v1" | "v1beta1";

/** A verified `response`; `patch` is the decoded JSON patch text (empty when none). */
export interface VerifiedResponse {
  allowed: boolean;
  status: JsonObject | undefined;
  patch: string;
  patchType: string;
  warnings: string[];
  auditAnnotations: Record<string, string>;
}

/** The first of `admissionReviewVersions` the chain speaks, or undefined (upstream CreateAdmissionObjects). */
export function pickReviewVersion(versions: readonly string[]): ReviewVersion | undefined {
  return versions.find((v): v is ReviewVersion => v === "v1" || v === "v1beta1");
}

function userInfo(attrs: AdmissionAttributes): JsonObject {
  const out: JsonObject = {};
  const u = attrs.user;
  if (u.username !== "") out.username = u.username;
  if (u.uid !== undefined && u.uid !== "") out.uid = u.uid;
  if (u.groups.length > 0) out.groups = [...u.groups];
  if (u.extra !== undefined && Object.keys(u.extra).length > 0) {
    out.extra = Object.fromEntries(Object.entries(u.extra).map(([k, v]) => [k, [...v]]));
  }
  return out;
}

/**
 * The AdmissionRequest fields shared by webhooks and matchConditions' `request` variable: kinds,
 * resources, subresources, name, namespace, operation, userInfo, dryRun and options (omitempty
 * fields left out as Go's encoder does).
 */
export function admissionRequestBase(attrs: AdmissionAttributes): JsonObject {
  const { kind, resource } = attrs;
  const gvk = { group: kind.group, version: kind.version, kind: kind.kind };
  const gvr = { group: resource.group, version: resource.version, resource: resource.resource };
  const req: JsonObject = { kind: gvk, resource: gvr };
  if (attrs.subResource !== "") req.subResource = attrs.subResource;
  req.requestKind = { ...gvk };
  req.requestResource = { ...gvr };
  if (attrs.subResource !== "") req.requestSubResource = attrs.subResource;
  if (attrs.name !== "") req.name = attrs.name;
  if (attrs.namespace !== "") req.namespace = attrs.namespace;
  req.operation = attrs.operation;
  req.userInfo = userInfo(attrs);
  req.dryRun = attrs.dryRun;
  req.options = attrs.options;
  return req;
}

/** The AdmissionReview POSTed to a webhook; `attrs.object` is the current (possibly already mutated) object. */
export function buildAdmissionReview(
  version: ReviewVersion,
  uid: string,
  attrs: AdmissionAttributes,
): JsonObject {
  const { dryRun, options, ...base } = admissionRequestBase(attrs);
  const request: JsonObject = { uid, ...base, object: attrs.object, oldObject: attrs.oldObject };
  request.dryRun = dryRun ?? false;
  request.options = options ?? null;
  return { kind: "AdmissionReview", apiVersion: `admission.k8s.io/${version}`, request };
}

const SUCCESS_MIN = 200;
const SUCCESS_MAX = 206;
const MAX_UNSTRUCTURED_BYTES = 2048;

function mediaType(contentType: string): string {
  return (contentType.split(";")[0] ?? "").trim().toLowerCase();
}

function parseBody(media: string, body: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: media === "application/yaml" ? parseYaml(body) : JSON.parse(body) };
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err);
    return { ok: false, error: `couldn't get version/kind; json parse error: ${detail}` };
  }
}

/** apierrors.NewGenericServerResponse for a non-2xx answer that carries no Status. */
function genericServerResponse(code: number, serverMessage: string): string {
  switch (code) {
    case 400:
      return "the server rejected our request for an unknown reason";
    case 401:
      return "the server has asked for the client to provide credentials";
    case 403:
    case 415:
      return serverMessage;
    case 404:
      return "the server could not find the requested resource";
    case 405:
      return "the server does not allow this method on the requested resource";
    case 406:
      return serverMessage === "unknown" || serverMessage === ""
        ? "the server was unable to respond with a content type that the client supports"
        : serverMessage;
    case 409:
      return "the server reported a conflict";
    case 422:
      return "the server rejected our request due to an error in our request";
    case 429:
      return "the server has received too many requests and has asked us to try again later";
    case 503:
      return "the server is currently unable to handle the request";
    case 504:
      return "the server was unable to return a response in the time allotted, but may still be processing the request";
    default:
      return code >= 500
        ? `an error on the server (${JSON.stringify(serverMessage)}) has prevented the request from succeeding`
        : `the server responded with the status code ${code} but did not return more information`;
  }
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function failureStatusMessage(value: unknown): string | undefined {
  if (!isObject(value) || value.kind !== "Status" || value.status !== "Failure") return undefined;
  return typeof value.message === "string" ? value.message : "";
}

/**
 * Turns the HTTP answer into the AdmissionReview body, or the error client-go reports for it
 * (non-2xx answers, unknown content types, empty or undecodable bodies).
 */
export function decodeHttpAnswer(
  answer: Extract<PostResult, { ok: true }>,
): { ok: true; review: JsonObject } | { ok: false; error: string } {
  const contentType = answer.contentType ?? "application/json";
  const media = mediaType(contentType);
  const decodable = media === "application/json" || media === "application/yaml";
  if (answer.status < SUCCESS_MIN || answer.status > SUCCESS_MAX) {
    if (decodable && answer.body !== "") {
      const parsed = parseBody(media, answer.body);
      const message = parsed.ok ? failureStatusMessage(parsed.value) : undefined;
      if (message !== undefined) return { ok: false, error: message };
    }
    const text = media.startsWith("text/") ? answer.body.slice(0, MAX_UNSTRUCTURED_BYTES).trim() : "unknown";
    return { ok: false, error: genericServerResponse(answer.status, text) };
  }
  if (!decodable) return { ok: false, error: `serializer for ${contentType} doesn't exist` };
  if (answer.body === "") {
    return {
      ok: false,
      error: `0-length response with status code: ${answer.status} and content type: ${contentType}`,
    };
  }
  const parsed = parseBody(media, answer.body);
  if (!parsed.ok) return parsed;
  if (!isObject(parsed.value)) {
    return {
      ok: false,
      error: `json: cannot unmarshal ${jsonType(parsed.value)} into Go value of type v1.AdmissionReview`,
    };
  }
  const fieldError = checkResponseFields(parsed.value.response);
  return fieldError === undefined ? { ok: true, review: parsed.value } : { ok: false, error: fieldError };
}

function jsonType(value: unknown): string {
  if (Array.isArray(value)) return "array";
  if (value === null) return "null";
  if (typeof value === "boolean") return "bool";
  return typeof value;
}

const FIELD_TYPES: Record<string, { go: string; ok: (v: unknown) => boolean }> = {
  uid: { go: "types.UID", ok: (v) => typeof v === "string" },
  allowed: { go: "bool", ok: (v) => typeof v === "boolean" },
  patch: { go: "[]uint8", ok: (v) => typeof v === "string" },
  patchType: { go: "v1.PatchType", ok: (v) => typeof v === "string" },
  status: { go: "v1.Status", ok: isObject },
  warnings: { go: "[]string", ok: (v) => Array.isArray(v) && v.every((w) => typeof w === "string") },
  auditAnnotations: {
    go: "map[string]string",
    ok: (v) => isObject(v) && Object.values(v).every((a) => typeof a === "string"),
  },
};

/** Go's typed decoding of `response`: wrong JSON types and bad base64 fail the whole decode. */
function checkResponseFields(response: JsonValue | undefined): string | undefined {
  if (response === undefined || response === null) return undefined;
  if (!isObject(response)) {
    return `json: cannot unmarshal ${jsonType(response)} into Go struct field AdmissionReview.response of type v1.AdmissionResponse`;
  }
  for (const [field, spec] of Object.entries(FIELD_TYPES)) {
    const value = response[field];
    if (value === undefined || value === null || spec.ok(value)) continue;
    return `json: cannot unmarshal ${jsonType(value)} into Go struct field AdmissionResponse.response.${field} of type ${spec.go}`;
  }
  const patch = response.patch;
  if (typeof patch === "string") {
    const clean = patch.replace(/[\r\n]/g, "");
    const bad = /^[A-Za-z0-9+/]*={0,2}$/.test(clean) && clean.length % 4 === 0 ? -1 : firstBadBase64(clean);
    if (bad >= 0) return `illegal base64 data at input byte ${bad}`;
  }
  return undefined;
}

function firstBadBase64(text: string): number {
  const bad = text.search(/[^A-Za-z0-9+/=]/);
  if (bad >= 0) return bad;
  const pad = text.indexOf("=");
  return pad >= 0 && !/^=*$/.test(text.slice(pad)) ? pad : text.length - (text.length % 4);
}

/**
 * Checks the decoded AdmissionReview against the request: a response must be present, and for v1
 * the uid must echo the request's and apiVersion/kind must be `admission.k8s.io/v1` AdmissionReview;
 * patches only from mutating webhooks and only with a patchType. Errors are upstream's reasons.
 */
export function verifyResponse(
  review: JsonObject,
  version: ReviewVersion,
  uid: string,
  mutating: boolean,
): { ok: true; response: VerifiedResponse } | { ok: false; error: string } {
  const r = review.response;
  if (!isObject(r)) return { ok: false, error: invalidResponse.absent };
  if (version === "v1") {
    const got = typeof r.uid === "string" ? r.uid : "";
    if (got !== uid) return { ok: false, error: invalidResponse.uid(uid, got) };
    const apiVersion = typeof review.apiVersion === "string" ? review.apiVersion : "";
    const slash = apiVersion.lastIndexOf("/");
    const gv = slash < 0 ? `/${apiVersion}` : apiVersion;
    const kind = typeof review.kind === "string" ? review.kind : "";
    const gotGvk = `${gv}, Kind=${kind}`;
    const want = "admission.k8s.io/v1, Kind=AdmissionReview";
    if (gotGvk !== want) return { ok: false, error: invalidResponse.gvk(want, gotGvk) };
  }
  const patch = typeof r.patch === "string" ? Buffer.from(r.patch, "base64").toString("utf8") : "";
  const patchType = typeof r.patchType === "string" ? r.patchType : "";
  if (version === "v1") {
    if (patch !== "" && patchType === "") return { ok: false, error: invalidResponse.patchWithoutType };
    if (patch !== "" && !mutating) return { ok: false, error: invalidResponse.validatingPatch };
    if (patch === "" && patchType !== "") return { ok: false, error: invalidResponse.typeWithoutPatch };
    if (patchType !== "" && !mutating) return { ok: false, error: invalidResponse.validatingPatchType };
  }
  const warnings = Array.isArray(r.warnings)
    ? r.warnings.filter((w): w is string => typeof w === "string")
    : [];
  const auditAnnotations: Record<string, string> = {};
  if (isObject(r.auditAnnotations)) {
    for (const [k, v] of Object.entries(r.auditAnnotations))
      if (typeof v === "string") auditAnnotations[k] = v;
  }
  const status = isObject(r.status) ? r.status : undefined;
  return {
    ok: true,
    response: { allowed: r.allowed === true, status, patch, patchType, warnings, auditAnnotations },
  };
}
