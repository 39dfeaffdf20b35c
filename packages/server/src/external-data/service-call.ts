/**
 * `apiCall.service` context entries: an HTTP(S) request to a service outside the API server, with the
 * response read only up to a byte budget and parsed as JSON. The engine hands over the URL, method and
 * data; a `caBundle` is not passed through it, so servers must present certificates the system trusts.
 */
import type { JsonValue } from "@kyverno-ts/api";
import type { LoadResult } from "@kyverno-ts/engine";

/** One call, as the engine's `ContextLoader.apiCall` receives it. */
export interface ServiceCall {
  url?: string;
  method: string;
  data?: JsonValue;
}

/** Bounds of a call. */
export interface ServiceCallOptions {
  maxBytes: number;
  /** Aborts the request (the caller combines its timeout into it). */
  signal: AbortSignal;
  fetch?: typeof fetch;
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
  const doFetch = options.fetch ?? fetch;
  const post = call.method === "POST";
  const response = await doFetch(url, {
    method: post ? "POST" : "GET",
    headers: { accept: "application/json", ...(post ? { "content-type": "application/json" } : {}) },
    ...(post ? { body: JSON.stringify(call.data ?? {}) } : {}),
    signal: options.signal,
    redirect: "error",
  });
  const text = await readBounded(response.body, options.maxBytes);
  if (text === undefined)
    return { ok: false, error: `${what}: response larger than ${options.maxBytes} bytes` };
  if (!response.ok) return { ok: false, error: `${what}: HTTP ${response.status} ${text.slice(0, 200)}` };
  try {
    return { ok: true, value: JSON.parse(text) as JsonValue };
  } catch {
    return { ok: false, error: `${what}: the response is not JSON` };
  }
}
