/**
 * JSON delivery with a per-request timeout and bounded retries with exponential backoff.
 * 5xx, 429, timeouts and network errors are retried; other 4xx are not (the request is wrong).
 */

import { sleep } from "@kyverno-ts/api";
import { createLogAggregator } from "../../log-aggregator.js";
import type { DeliveryErrorCode, DeliveryOptions, HttpResponse, TargetDeps } from "../types.js";
import { DeliveryError } from "./errors.js";

/** Defaults of `DeliveryOptions`: 10 s timeout, 3 retries, backoff 500 ms doubling up to 10 s. */
export const DEFAULT_DELIVERY: Readonly<Required<DeliveryOptions>> = {
  timeoutMs: 10_000,
  retries: 3,
  backoffMs: 500,
  maxBackoffMs: 10_000,
};

/** The User-Agent of every request. */
export const USER_AGENT = "Policy-Reporter (kyverno-ts)";

/** One JSON request of a target. */
export interface JsonRequest {
  url: string;
  method?: "POST" | "PUT";
  payload: unknown;
  /** Request-specific headers (auth); override the target's configured headers. */
  headers?: Readonly<Record<string, string>>;
}

/** Sends JSON requests for one target; rejects with a `DeliveryError` when retries are exhausted. */
export type JsonSender = (request: JsonRequest) => Promise<HttpResponse>;

/** What failed in one attempt, and whether it is worth retrying. */
interface AttemptFailure {
  code: DeliveryErrorCode;
  message: string;
  status?: number;
  retryable: boolean;
  /** Delay asked by the server (Retry-After), in ms. */
  retryAfterMs?: number;
}

/**
 * Creates the sender of a target: JSON-encodes the payload, adds `Content-Type`, `User-Agent` and the
 * configured `headers`, and retries per `options` (defaults `DEFAULT_DELIVERY`). Every failed attempt is
 * reported to `deps.onError` and logged.
 */
export function createJsonSender(
  target: string,
  headers: Readonly<Record<string, string>> | undefined,
  options: DeliveryOptions | undefined,
  deps: TargetDeps,
): JsonSender {
  const opts = { ...DEFAULT_DELIVERY, ...options };
  // One line per failure kind and 30 s, however many notifications fail.
  const log = createLogAggregator({ logger: deps.logger, clock: deps.clock });
  return async (req) => {
    const body = JSON.stringify(req.payload);
    const allHeaders = {
      "content-type": "application/json; charset=utf-8",
      "user-agent": USER_AGENT,
      ...lowerKeys(headers),
      ...lowerKeys(req.headers),
    };
    for (let attempt = 1; ; attempt++) {
      const outcome = await attemptOnce(deps, {
        method: req.method ?? "POST",
        url: req.url,
        headers: allHeaders,
        body,
        timeoutMs: opts.timeoutMs,
      });
      if ("response" in outcome) return outcome.response;
      const failure = outcome.failure;
      const willRetry = failure.retryable && attempt <= opts.retries;
      deps.onError?.({
        target,
        code: failure.code,
        attempt,
        willRetry,
        ...(failure.status === undefined ? {} : { status: failure.status }),
        message: failure.message,
      });
      log.log({
        key: `${failure.code}\u0000${failure.status ?? ""}`,
        level: "warn",
        fields: { target, code: failure.code, status: failure.status, attempt, willRetry },
        message: `delivery failed: ${failure.message}`,
        summary: (n, s) =>
          `${n} more deliveries to ${target} failed in the last ${s} s (${failure.code}: ${failure.message})`,
      });
      if (!willRetry) throw new DeliveryError(target, failure.code, failure.message, failure.status);
      const backoff = Math.min(opts.maxBackoffMs, opts.backoffMs * 2 ** (attempt - 1));
      await sleep(deps.clock, Math.min(opts.maxBackoffMs, Math.max(backoff, failure.retryAfterMs ?? 0)));
    }
  };
}

/** Sends once; never throws. */
async function attemptOnce(
  deps: TargetDeps,
  req: {
    method: "POST" | "PUT";
    url: string;
    headers: Record<string, string>;
    body: string;
    timeoutMs: number;
  },
): Promise<{ response: HttpResponse } | { failure: AttemptFailure }> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, req.timeoutMs);
  try {
    const response = await deps.http.request({
      method: req.method,
      url: req.url,
      headers: req.headers,
      body: req.body,
      signal: controller.signal,
    });
    if (response.status >= 200 && response.status < 300) return { response };
    const retryable = response.status >= 500 || response.status === 429 || response.status === 408;
    const retryAfterMs = parseRetryAfter(response.headers["retry-after"]);
    return {
      failure: {
        code: "HTTP_STATUS",
        status: response.status,
        message: `HTTP ${response.status}${response.body ? `: ${response.body.slice(0, 200)}` : ""}`,
        retryable,
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      },
    };
  } catch (error) {
    if (timedOut) {
      return {
        failure: { code: "TIMEOUT", message: `no response within ${req.timeoutMs} ms`, retryable: true },
      };
    }
    const message = error instanceof Error ? error.message : String(error);
    return { failure: { code: "NETWORK", message, retryable: true } };
  } finally {
    clearTimeout(timer);
  }
}

/** Retry-After in seconds (HTTP dates are ignored). */
function parseRetryAfter(value: string | string[] | undefined): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (v === undefined || !/^\d+$/.test(v.trim())) return undefined;
  return Number(v.trim()) * 1000;
}

function lowerKeys(headers: Readonly<Record<string, string>> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers ?? {})) out[k.toLowerCase()] = v;
  return out;
}

/** Basic auth header value. */
export function basicAuth(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`).toString("base64")}`;
}
