/**
 * The error a target rejects with once delivery has failed for good.
 */
import type { DeliveryErrorCode } from "../types.js";

/**
 * A delivery that failed after its retries (or was not attempted, for `QUEUE_FULL`).
 * Tell failures apart by `code`, never by the message.
 */
export class DeliveryError extends Error {
  override readonly name = "DeliveryError";
  readonly code: DeliveryErrorCode;
  readonly target: string;
  /** HTTP status for `HTTP_STATUS`. */
  readonly status: number | undefined;

  constructor(target: string, code: DeliveryErrorCode, message: string, status?: number) {
    super(`${target}: ${message}`);
    this.code = code;
    this.target = target;
    this.status = status;
  }
}

/** True when `error` is a `DeliveryError`. */
export function isDeliveryError(error: unknown): error is DeliveryError {
  return error instanceof DeliveryError;
}
