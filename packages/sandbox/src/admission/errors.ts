/**
 * Every message the admission chain produces, in kube-apiserver's words (k8s.io/apimachinery
 * `apierrors` constructors and k8s.io/apiserver webhook errors), kept in one place since clients
 * and tests compare them.
 */
import type { JsonObject, JsonValue } from "@kyverno-ts/api";
import type { StatusError } from "./types.js";

/**
 * Why a webhook call did not produce an allowed response, as upstream tells them apart:
 * `calling` (ErrCallingWebhook: the webhook could not be called or answered garbage; subject to
 * `failurePolicy`), `rejection` (ErrWebhookRejection: the webhook said no) and `status` (any other
 * error, e.g. an unappliable patch or a dry-run refusal: always rejects, whatever the policy).
 */
export type HookError =
  | { type: "calling"; webhook: string; reason: string }
  | { type: "rejection"; status: StatusError }
  | { type: "status"; status: StatusError };

/** ErrCallingWebhook.Error(): `failed calling webhook "x": <reason>`. */
export function callingWebhookMessage(webhook: string, reason: string): string {
  return `failed calling webhook "${webhook}": ${reason}`;
}

/** apierrors.NewInternalError: code 500, `Internal error occurred: …`. */
export function internalError(message: string): StatusError {
  return {
    code: 500,
    reason: "InternalError",
    message: `Internal error occurred: ${message}`,
    details: { causes: [{ message }] },
  };
}

/** apierrors.NewBadRequest: code 400, message as is. */
export function badRequest(message: string): StatusError {
  return { code: 400, reason: "BadRequest", message };
}

/** apierrors.NewTimeoutError as the dispatchers use it when the request's own deadline passed. */
export function requestTimeout(): StatusError {
  return {
    code: 504,
    reason: "Timeout",
    message: "Timeout: request did not complete within requested timeout",
    details: {},
  };
}

/** apierrors.NewForbidden(groupResource, name, err), used when matchConditions fail to evaluate under `Fail`. */
export function forbidden(group: string, resource: string, name: string, message: string): StatusError {
  const qualified = group === "" ? resource : `${resource}.${group}`;
  const text =
    qualified === ""
      ? `forbidden: ${message}`
      : name === ""
        ? `${qualified} is forbidden: ${message}`
        : `${qualified} "${name}" is forbidden: ${message}`;
  return { code: 403, reason: "Forbidden", message: text, details: { group, kind: resource, name } };
}

/** webhookerrors.NewDryRunUnsupportedErr: a dry-run request reached a webhook with side effects. */
export function dryRunUnsupported(webhook: string): StatusError {
  return badRequest(`admission webhook "${webhook}" does not support dry run`);
}

/**
 * webhookerrors.ToStatusErr: the webhook's own `status` with the `admission webhook "x" denied the
 * request` prefix, a code of at least 400 and its reason and details kept.
 */
export function webhookDenied(webhook: string, result: JsonObject | undefined): StatusError {
  const deniedBy = `admission webhook "${webhook}" denied the request`;
  const rawCode = result?.code;
  const code = typeof rawCode === "number" && rawCode >= 400 ? rawCode : 400;
  const reason = typeof result?.reason === "string" ? result.reason : "";
  const message = typeof result?.message === "string" ? result.message : "";
  const text =
    message !== ""
      ? `${deniedBy}: ${message}`
      : reason !== ""
        ? `${deniedBy}: ${reason}`
        : `${deniedBy} without explanation`;
  const status: StatusError = { code, reason, message: text };
  const details: JsonValue | undefined = result?.details;
  if (details !== undefined && details !== null) status.details = details;
  return status;
}

/** The webhook attempted to patch a request that carries no object (e.g. DELETE). */
export function patchWithoutObject(webhook: string): StatusError {
  return internalError(
    `admission webhook "${webhook}" attempted to modify the object, which is not supported for this operation`,
  );
}

/** Reasons of ErrCallingWebhook for a response that does not verify (webhookrequest.VerifyAdmissionResponse). */
export const invalidResponse = {
  absent: "webhook response was absent",
  uid: (expected: string, got: string) => `expected response.uid="${expected}", got "${got}"`,
  gvk: (expected: string, got: string) => `expected webhook response of ${expected}, got ${got}`,
  patchWithoutType: "webhook returned response.patch but not response.patchType",
  typeWithoutPatch: "webhook returned response.patchType but not response.patch",
  validatingPatch: "validating webhook may not return response.patch",
  validatingPatchType: "validating webhook may not return response.patchType",
} as const;

/** Prefixes upstream puts on ErrCallingWebhook reasons. */
export const callingReason = {
  failedToCall: (detail: string) => `failed to call webhook: ${detail}`,
  invalidResponse: (detail: string) => `received invalid webhook response: ${detail}`,
  noReviewVersion:
    "could not create admission objects: webhook does not accept v1 or v1beta1 AdmissionReview",
  noClient: (detail: string) => `could not get REST client: ${detail}`,
  sideEffectsNil: "Webhook SideEffects is nil",
  unsupportedPatchType: (patchType: string) => `unsupported patch type "${patchType}"`,
} as const;

/** Transport errors as Go's net/http prints them (`Post "<url>": <cause>`). */
export const transport = {
  post: (url: string, cause: string) => `Post "${url}": ${cause}`,
  deadline: "context deadline exceeded",
  canceled: "context canceled",
  refused: (host: string) => `dial tcp ${host}: connect: connection refused`,
  noSuchHost: (host: string) => `dial tcp: lookup ${host}: no such host`,
  unknownAuthority: "tls: failed to verify certificate: x509: certificate signed by unknown authority",
  expired: "tls: failed to verify certificate: x509: certificate has expired or is not yet valid",
  hostname: (detail: string) => `tls: failed to verify certificate: x509: ${detail}`,
  eof: "EOF",
  reset: (host: string) => `read tcp ${host}: read: connection reset by peer`,
} as const;

/** Log lines (klog.Warningf in upstream dispatchers). */
export const logLine = {
  failingOpen: (webhook: string, reason: string) =>
    `Failed calling webhook, failing open ${webhook}: ${reason}`,
  failingClosed: (webhook: string, reason: string) =>
    `Failed calling webhook, failing closed ${webhook}: ${reason}`,
  conditionsFailingClosed: (webhook: string, reason: string) =>
    `Failed evaluating match conditions, failing closed ${webhook}: ${reason}`,
  rejected: (webhook: string, message: string) => `rejected by webhook "${webhook}": ${message}`,
} as const;
