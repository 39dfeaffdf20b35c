/**
 * The undici-based `HttpClient`: one connection pool per client, keep-alive, optional custom CA or
 * skipped TLS verification.
 */
import { readFileSync } from "node:fs";
import { Agent, request } from "undici";
import type { HttpClient, HttpRequest, HttpResponse } from "../types.js";

/** TLS settings of an HTTP target (`certificate`, `skipTLS` in the target configuration). */
export interface HttpClientOptions {
  /** Path to a PEM file with the server's CA certificate. */
  certificate?: string;
  /** PEM content of the CA certificate; takes precedence over `certificate`. */
  ca?: string;
  /** Do not verify the server certificate. */
  skipTLS?: boolean;
  /** Idle keep-alive of pooled connections in milliseconds (default 30 s). */
  keepAliveTimeoutMs?: number;
}

/**
 * Creates an `HttpClient` on undici with its own connection pool. Build one per distinct TLS
 * configuration and `close()` it on shutdown. Reads `certificate` synchronously, once.
 */
export function createHttpClient(options: HttpClientOptions = {}): HttpClient {
  const ca = options.ca ?? (options.certificate ? readFileSync(options.certificate, "utf8") : undefined);
  const agent = new Agent({
    keepAliveTimeout: options.keepAliveTimeoutMs ?? 30_000,
    connect: {
      ...(ca === undefined ? {} : { ca }),
      ...(options.skipTLS ? { rejectUnauthorized: false } : {}),
    },
  });
  return {
    async request(req: HttpRequest): Promise<HttpResponse> {
      const res = await request(req.url, {
        dispatcher: agent,
        method: req.method,
        headers: { ...req.headers },
        body: req.body,
        signal: req.signal,
      });
      const body = await res.body.text();
      return { status: res.statusCode, headers: res.headers, body };
    },
    close: () => agent.close(),
  };
}
