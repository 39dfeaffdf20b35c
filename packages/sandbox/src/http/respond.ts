/** Writing JSON responses, Status errors and `Warning` headers. */
import type { ServerResponse } from "node:http";
import type { JsonValue } from "@kyverno-ts/api";
import { ApiError, internalError } from "./status.js";

/** Sends a JSON body with a status code. */
export function sendJson(
  res: ServerResponse,
  code: number,
  body: JsonValue,
  contentType = "application/json",
): void {
  const text = JSON.stringify(body);
  res.writeHead(code, {
    "Content-Type": contentType,
    "Content-Length": Buffer.byteLength(text),
    "Cache-Control": "no-cache, private",
  });
  res.end(text);
}

/** Sends an error as a Kubernetes Status (unexpected errors become a 500 InternalError). */
export function sendError(res: ServerResponse, error: unknown): void {
  const apiError =
    error instanceof ApiError ? error : internalError(error instanceof Error ? error.message : String(error));
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendJson(res, apiError.code, apiError.toStatus());
}

/** Adds `Warning: 299 - "…"` headers, as admission warnings reach clients. */
export function addWarnings(res: ServerResponse, warnings: readonly string[]): void {
  if (warnings.length === 0) return;
  const existing = res.getHeader("Warning");
  const previous = Array.isArray(existing) ? existing : typeof existing === "string" ? [existing] : [];
  const formatted = warnings.map((w) => `299 - ${JSON.stringify(w.replace(/[^\x20-\x7e]/g, " "))}`);
  res.setHeader("Warning", [...previous, ...formatted]);
}
