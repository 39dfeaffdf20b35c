/**
 * `apiCall.service` context entries: an HTTP(S) request to a service outside the API server, with the
 * entry's headers, trusting its `caBundle` (else the system's CAs), the response read only up to a
 * byte budget and parsed as JSON. Header values never appear in errors (they may hold credentials).
 */
import type { JsonValue } from "@kyverno-ts/api";
import type { ApiCallRequest, LoadResult } from "@kyverno-ts/engine";
import { Agent, fetch as undiciFetch } from "undici";

/** One call, as the engine's `ContextLoader.apiCall` receives it. */
export type ServiceCall = Omit<ApiCallRequest, "urlPath">;

/** What a call hands to `fetch`. */
export interface ServiceFetchInit {
  method: "GET" | "POST";
  headers: Array<[string, string]>;
  body?: string;
  signal: AbortSignal;
  redirect: "error";
  /** Trusts the entry's `caBundle`. */
  dispatcher?: Agent;
}

/** What a call reads of the answer. */
export interface ServiceResponse {
  ok: boolean;
  status: number;
  body: ReadableStream<Uint8Array> | null;
}

/** The `fetch` a call is made with: undici's by default (so a `caBundle` is trusted through a dispatcher). */
export type ServiceFetch = (url: string, init: ServiceFetchInit) => Promise<ServiceResponse>;

/** Bounds of a call. */
export interface ServiceCallOptions {
  maxBytes: number;
  /** Aborts the request (the caller combines its timeout into it). */
  signal: AbortSignal;
  fetch?: ServiceFetch;
}

/** Reads at most `maxBytes` of a body; undefined when it is longer. */
async function readBounded(
  body: ReadableStream<Uint8Array> | null,
  maxBytes: number,
): Promise<string | undefined> {
  if (body === null) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** Makes the call; every failure (network, status, size, JSON) is an error result naming the URL. */
export async function serviceCall(call: ServiceCall, options: ServiceCallOptions): Promise<LoadResult> {
  const url = call.url ?? "";
  const what = `apiCall ${url}`;
  if (!/^https?:\/\//.test(url)) return { ok: false, error: `${what}: not an http(s) URL` };
  const doFetch = options.fetch ?? (undiciFetch as unknown as ServiceFetch);
  const post = call.method === "POST";
  const headers = new Map<string, string>([["accept", "application/json"]]);
  if (post) headers.set("content-type", "application/json");
  for (const { key, value } of call.headers ?? []) headers.set(key.toLowerCase(), value);
  const dispatcher = call.caBundle ? new Agent({ connect: { ca: call.caBundle } }) : undefined;
  try {
    const response = await doFetch(url, {
      method: post ? "POST" : "GET",
      headers: [...headers],
      ...(post ? { body: JSON.stringify(call.data ?? {}) } : {}),
      signal: options.signal,
      redirect: "error",
      ...(dispatcher ? { dispatcher } : {}),
    });
    return await answer(response, what, options.maxBytes);
  } catch (error) {
    if (options.signal.aborted) throw error;
    return { ok: false, error: `${what}: ${causeOf(error)}` };
  } finally {
    await dispatcher?.close();
  }
}

/** The innermost reason of a fetch failure (undici wraps it as "fetch failed"). */
function causeOf(error: unknown): string {
  let current: unknown = error;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  return current instanceof Error ? current.message : String(current);
}

async function answer(response: ServiceResponse, what: string, maxBytes: number): Promise<LoadResult> {
  const text = await readBounded(response.body, maxBytes);
  if (text === undefined) return { ok: false, error: `${what}: response larger than ${maxBytes} bytes` };
  if (!response.ok) return { ok: false, error: `${what}: HTTP ${response.status} ${text.slice(0, 200)}` };
  try {
    return { ok: true, value: JSON.parse(text) as JsonValue };
  } catch {
    return { ok: false, error: `${what}: the response is not JSON` };
  }
}
