/** Turning responses and transport errors into `ApiFailure` values; the only place reasons are derived. */
import type { ApiFailure, ApiResult, StatusDetails } from "./types.js";

const REASON_BY_STATUS: Readonly<Record<number, string>> = {
  400: "BadRequest",
  401: "Unauthorized",
  403: "Forbidden",
  404: "NotFound",
  405: "MethodNotAllowed",
  406: "NotAcceptable",
  409: "Conflict",
  410: "Gone",
  413: "RequestEntityTooLarge",
  415: "UnsupportedMediaType",
  422: "Invalid",
  429: "TooManyRequests",
  500: "InternalError",
  503: "ServiceUnavailable",
  504: "Timeout",
};

/** A failure built on this side of the wire (no usable response). */
export function clientFailure(status: number, reason: string, message: string): ApiFailure {
  return { ok: false, status, reason, message };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The failure for a non-2xx response, from its `Status` body when it has one. */
export function failureFromResponse(status: number, body: unknown): ApiFailure {
  const fallbackReason = REASON_BY_STATUS[status] ?? (status >= 500 ? "InternalError" : "Unknown");
  if (isRecord(body) && body.kind === "Status") {
    const failure: ApiFailure = {
      ok: false,
      status: typeof body.code === "number" && body.code > 0 ? body.code : status,
      reason: typeof body.reason === "string" && body.reason !== "" ? body.reason : fallbackReason,
      message: typeof body.message === "string" ? body.message : `HTTP ${status}`,
    };
    if (isRecord(body.details)) failure.details = body.details as StatusDetails;
    return failure;
  }
  const text = typeof body === "string" && body.trim() !== "" ? body.trim().slice(0, 500) : `HTTP ${status}`;
  return { ok: false, status, reason: fallbackReason, message: text };
}

/** The failure for an exception thrown by the transport (socket errors, aborts, timeouts). */
export function failureFromError(error: unknown, aborted: boolean, timedOut: boolean): ApiFailure {
  const message = error instanceof Error ? error.message : String(error);
  if (timedOut) return clientFailure(0, "Timeout", `request timed out: ${message}`);
  if (aborted) return clientFailure(0, "Aborted", "request aborted");
  return clientFailure(0, "Unreachable", message);
}

/** True for a 404 failure (the object, or for `UnknownKind` its kind, does not exist). */
export function isNotFound(result: ApiResult<unknown>): result is ApiFailure {
  return !result.ok && result.status === 404;
}

/** True for a 409 failure: `Conflict` (stale resourceVersion) or `AlreadyExists`. */
export function isConflict(result: ApiResult<unknown>): result is ApiFailure {
  return !result.ok && result.status === 409;
}
