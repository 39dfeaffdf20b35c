/**
 * HTTP to the API server. `@kubernetes/client-node`'s `KubeConfig` does what is hard to get right
 * (kubeconfig and in-cluster loading, client certificates, bearer tokens from files, exec and OIDC
 * plugins); requests go through `node:https` with one keep-alive agent per client, because
 * `KubernetesObjectApi` re-encodes bodies through its typed models (dropping fields it does not know,
 * turning timestamps into `Date`s), cannot send a JSON Patch, throws on every API error, and its fetch
 * path builds a new connection pool for each request.
 */
import * as http from "node:http";
import * as https from "node:https";
import type { KubeConfig } from "@kubernetes/client-node";
import { clientFailure, failureFromError, failureFromResponse } from "./failure.js";
import { answerOf, decode, readBody, readLines, type StreamSink } from "./transport-body.js";
import type { ApiFailure, ApiResult } from "./types.js";

/** One request; `path` starts with `/api` or `/apis`. */
export interface HttpRequest {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  query?: URLSearchParams;
  body?: string;
  contentType?: string;
  signal?: AbortSignal;
  /** Gives up (failure `Timeout`) when no response arrives in time; for streams, after this much silence. */
  timeoutMs: number;
  /** `header`: a 2xx answer's `apiVersion`, `kind` and `metadata` only are decoded. */
  decode?: "object" | "header";
}

/** Sends requests with the credentials of one kubeconfig context. */
export interface Transport {
  /** Resolves with the decoded JSON body of a 2xx response, or the failure. */
  request(req: HttpRequest): Promise<ApiResult<unknown>>;
  /** Opens a streamed GET; resolves once the response headers arrive (a stop function on 200). */
  stream(req: HttpRequest, sink: StreamSink): Promise<ApiResult<() => void>>;
  /** Closes idle keep-alive connections. */
  close(): void;
}

type Agent = http.Agent | https.Agent;

interface Connection {
  agent: Agent;
  headers: Record<string, string>;
  auth?: string;
}

/** How long the credentials of one `applyToHTTPSOptions` call are reused (see `createConnections`). */
export const CREDENTIALS_TTL_MS = 1000;

/** Options of `createTransport`. */
export interface TransportOptions {
  /** How long credentials are reused before the kubeconfig is asked again (default `CREDENTIALS_TTL_MS`). */
  credentialsTtlMs?: number;
  /** Monotonic milliseconds, for the credentials' age (default `performance.now`). */
  now?: () => number;
}

/**
 * The credentials of the current context and one keep-alive agent for all requests (a proxy's agent
 * when the kubeconfig names a proxy), created on the first request. `applyToHTTPSOptions` re-reads CA
 * and key files and builds an agent on every call, so its headers are reused for `credentialsTtlMs`:
 * a rotated token file (client-node re-reads it every 60 s, exec plugins when their credential
 * expires) is picked up at most that much later, and a 401 answer (`invalidate`) asks again at once.
 */
function createConnections(
  kc: KubeConfig,
  userAgent: string,
  secure: boolean,
  options: TransportOptions,
): { connect(): Promise<Connection | ApiFailure>; invalidate(): void; close(): void } {
  const ttlMs = options.credentialsTtlMs ?? CREDENTIALS_TTL_MS;
  const now = options.now ?? (() => performance.now());
  let agent: Agent | undefined;
  let cached: { at: number; connection: Promise<Connection | ApiFailure> } | undefined;

  const load = async (): Promise<Connection | ApiFailure> => {
    const options: https.RequestOptions = { headers: {} };
    try {
      await kc.applyToHTTPSOptions(options);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return clientFailure(0, "ConfigError", `credentials: ${message}`);
    }
    if (agent === undefined) {
      const proxied = kc.getCurrentCluster()?.proxyUrl !== undefined && options.agent instanceof http.Agent;
      if (proxied) agent = options.agent as Agent;
      else {
        const tls: https.AgentOptions = { keepAlive: true, keepAliveMsecs: 30000 };
        for (const key of [
          "ca",
          "cert",
          "key",
          "pfx",
          "passphrase",
          "rejectUnauthorized",
          "servername",
        ] as const)
          if (options[key] !== undefined) Object.assign(tls, { [key]: options[key] });
        agent = secure ? new https.Agent(tls) : new http.Agent({ keepAlive: true, keepAliveMsecs: 30000 });
      }
    }
    const headers: Record<string, string> = { "User-Agent": userAgent };
    for (const [name, value] of Object.entries(options.headers ?? {}))
      if (value !== undefined) headers[name] = String(value);
    const result: Connection = { agent, headers };
    if (options.auth !== undefined && options.auth !== null) result.auth = options.auth;
    return result;
  };

  const connect = (): Promise<Connection | ApiFailure> => {
    const at = now();
    if (cached !== undefined && at - cached.at < ttlMs) return cached.connection;
    const connection = load();
    const entry = { at, connection };
    cached = entry;
    // A failure is not reused: the next request asks the kubeconfig again.
    void connection.then((c) => {
      if ("ok" in c && cached === entry) cached = undefined;
    });
    return connection;
  };

  return {
    connect,
    invalidate() {
      cached = undefined;
    },
    close() {
      agent?.destroy();
      agent = undefined;
      cached = undefined;
    },
  };
}

/**
 * A request path as sent: the client's paths are built from encoded parts, so they are used as they
 * are; one with a character a request line cannot carry is encoded as a URL would encode it.
 */
function requestPath(path: string, base: URL): string {
  if (/^[\x21-\x7e]*$/.test(path)) return path;
  const url = new URL(path, base);
  return `${url.pathname}${url.search}`;
}

/** Creates the transport for the current context of `kc`; nothing is sent until the first request. */
export function createTransport(
  kc: KubeConfig,
  userAgent: string,
  options: TransportOptions = {},
): Transport {
  const server = kc.getCurrentCluster()?.server;
  if (server === undefined || server === "")
    throw new Error("kubeconfig: the current context has no cluster");
  const base = new URL(server);
  const basePath = base.pathname.replace(/\/+$/, "");
  const secure = base.protocol === "https:";
  // Where every request goes, parsed once (a URL per request costs more than the request's own work).
  const target: https.RequestOptions = {
    protocol: base.protocol,
    hostname: base.hostname.startsWith("[") ? base.hostname.slice(1, -1) : base.hostname,
    ...(base.port === "" ? {} : { port: Number(base.port) }),
  };
  const send = secure ? https.request : http.request;
  const connections = createConnections(kc, userAgent, secure, options);

  /** Starts a request; `onResponse` gets the response, `onError` any failure before it. */
  const start = async (
    req: HttpRequest,
    accept: string,
    onResponse: (res: http.IncomingMessage, abort: () => void) => void,
    onError: (failure: ApiFailure) => void,
  ): Promise<void> => {
    const conn = await connections.connect();
    if ("ok" in conn) return onError(conn);
    if (req.signal?.aborted === true) return onError(clientFailure(0, "Aborted", "request aborted"));
    const query = req.query?.toString() ?? "";
    const headers: Record<string, string> = { ...conn.headers, Accept: accept };
    // Encoded once: its length and what is written are the same bytes.
    const body = req.body === undefined ? undefined : Buffer.from(req.body);
    if (body !== undefined) {
      headers["Content-Type"] = req.contentType ?? "application/json";
      headers["Content-Length"] = String(body.length);
    }
    const options: https.RequestOptions = {
      ...target,
      path: requestPath(`${basePath}${req.path}${query === "" ? "" : `?${query}`}`, base),
      method: req.method,
      headers,
      agent: conn.agent,
    };
    if (conn.auth !== undefined) options.auth = conn.auth;
    let settled = false;
    let timedOut = false;
    const request = send(options);
    const timer = setTimeout(() => {
      timedOut = true;
      request.destroy(new Error(`no response after ${req.timeoutMs} ms`));
    }, req.timeoutMs);
    const onAbort = (): void => {
      request.destroy(new Error("aborted"));
    };
    req.signal?.addEventListener("abort", onAbort, { once: true });
    const cleanup = (): void => {
      clearTimeout(timer);
      req.signal?.removeEventListener("abort", onAbort);
    };
    request.on("error", (error) => {
      if (settled) return;
      settled = true;
      cleanup();
      onError(failureFromError(error, req.signal?.aborted === true, timedOut));
    });
    request.on("response", (res) => {
      settled = true;
      cleanup();
      // Rejected credentials (a rotated token): the next request loads them anew.
      if (res.statusCode === 401) connections.invalidate();
      onResponse(res, () => request.destroy());
    });
    request.end(body);
  };

  return {
    request(req) {
      return new Promise((resolve) => {
        void start(
          req,
          "application/json",
          (res) => void readBody(res, req.timeoutMs).then((text) => resolve(answerOf(res, text, req.decode))),
          resolve,
        );
      });
    },

    stream(req, sink) {
      return new Promise((resolve) => {
        void start(
          req,
          "application/json",
          (res, abort) => {
            const status = res.statusCode ?? 0;
            if (status !== 200) {
              void readBody(res, req.timeoutMs).then((text) =>
                resolve(typeof text === "string" ? failureFromResponse(status, decode(text)) : text),
              );
              return;
            }
            resolve({ ok: true, status, value: readLines(res, req.timeoutMs, sink, abort) });
          },
          resolve,
        );
      });
    },

    close: () => connections.close(),
  };
}

export { type StreamSink, warningsOf } from "./transport-body.js";
