/**
 * HTTP to the API server, with the credentials of one kubeconfig context (`credentials.ts`: read
 * natively in the common cases, by `@kubernetes/client-node`'s `KubeConfig` for exec and OIDC plugins,
 * proxies and the rest). Requests go through `node:https` with one keep-alive agent per client, because
 * `KubernetesObjectApi` re-encodes bodies through its typed models (dropping fields it does not know,
 * turning timestamps into `Date`s), cannot send a JSON Patch, throws on every API error, and its fetch
 * path builds a new connection pool for each request. An HTTPS server reached without a proxy is
 * spoken to over HTTP/2 when it offers it (`transport-h2.ts`), as client-go does.
 */
import * as http from "node:http";
import * as http2 from "node:http2";
import * as https from "node:https";
import type { Readable } from "node:stream";
import type { Credentials } from "./credentials.js";
import { clientFailure, failureFromError, failureFromResponse } from "./failure.js";
import {
  answerOfChunks,
  decode,
  readBody,
  readChunks,
  readLines,
  type StreamSink,
} from "./transport-body.js";
import { createH2Sessions, type H2TlsOptions, h2Head, type ResponseHead } from "./transport-h2.js";
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
  /** The TLS options of an HTTPS server reached directly (no proxy), for HTTP/2; undefined otherwise. */
  tls?: H2TlsOptions;
  /** `headers` (and `auth` as Basic) with HTTP/2's lowercase names. */
  h2Headers: Record<string, string>;
}

/** What a stream that closed before its response failed with. */
const CLOSED_EARLY = new Error("the stream closed before a response");

/** How long the credentials of one `Credentials.apply` call are reused (see `createConnections`). */
export const CREDENTIALS_TTL_MS = 1000;

/** A request as `start` prepared it, for the send of the negotiated protocol. */
interface Outgoing {
  req: HttpRequest;
  /** The path with its query, as sent. */
  path: string;
  accept: string;
  /** The encoded body (its length and what is written are the same bytes). */
  body: Buffer | undefined;
  /** Any failure before the response (settles the request once). */
  fail: (error: unknown) => void;
  answer: (head: ResponseHead, res: Readable, abort: () => void) => void;
}

/** Options of `createTransport`. */
export interface TransportOptions {
  /** How long credentials are reused before the kubeconfig is asked again (default `CREDENTIALS_TTL_MS`). */
  credentialsTtlMs?: number;
  /** Monotonic milliseconds, for the credentials' age (default `performance.now`). */
  now?: () => number;
}

/**
 * The credentials of the current context and one keep-alive agent for all requests (a proxy's agent
 * when the kubeconfig names a proxy), created on the first request. `apply` re-reads CA and key files
 * (client-node's also builds an agent) on every call, so its headers are reused for `credentialsTtlMs`:
 * a rotated token file (re-read every 60 s, exec plugins when their credential expires) is picked up
 * at most that much later, and a 401 answer (`invalidate`) asks again at once.
 */
function createConnections(
  credentials: Credentials,
  userAgent: string,
  secure: boolean,
  options: TransportOptions,
): { connect(): Promise<Connection | ApiFailure>; invalidate(): void; close(): void } {
  const ttlMs = options.credentialsTtlMs ?? CREDENTIALS_TTL_MS;
  const now = options.now ?? (() => performance.now());
  let agent: Agent | undefined;
  let direct: H2TlsOptions | undefined;
  let cached: { at: number; connection: Promise<Connection | ApiFailure> } | undefined;

  const load = async (): Promise<Connection | ApiFailure> => {
    const options: https.RequestOptions = { headers: {} };
    try {
      await credentials.apply(options);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return clientFailure(0, "ConfigError", `credentials: ${message}`);
    }
    if (agent === undefined) {
      const proxied = credentials.proxied && options.agent instanceof http.Agent;
      if (proxied) agent = options.agent as Agent;
      else {
        const tls: https.AgentOptions = { keepAlive: true, keepAliveMsecs: 30000 };
        const trust: H2TlsOptions = {};
        for (const key of [
          "ca",
          "cert",
          "key",
          "pfx",
          "passphrase",
          "rejectUnauthorized",
          "servername",
        ] as const)
          if (options[key] !== undefined) Object.assign(trust, { [key]: options[key] });
        if (secure) direct = trust;
        agent = secure
          ? new https.Agent({ ...tls, ...trust })
          : new http.Agent({ keepAlive: true, keepAliveMsecs: 30000 });
      }
    }
    const headers: Record<string, string> = { "User-Agent": userAgent };
    for (const [name, value] of Object.entries(options.headers ?? {}))
      if (value !== undefined) headers[name] = String(value);
    const h2Headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) h2Headers[name.toLowerCase()] = value;
    const result: Connection = { agent, headers, h2Headers };
    if (options.auth !== undefined && options.auth !== null) {
      result.auth = options.auth;
      h2Headers.authorization ??= `Basic ${Buffer.from(options.auth).toString("base64")}`;
    }
    if (direct !== undefined) result.tls = direct;
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
      direct = undefined;
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

/** Creates the transport for one context's credentials; nothing is sent until the first request. */
export function createTransport(
  credentials: Credentials,
  userAgent: string,
  options: TransportOptions = {},
): Transport {
  const server = credentials.server;
  if (server === "") throw new Error("kubeconfig: the current context has no cluster");
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
  const connections = createConnections(credentials, userAgent, secure, options);

  const sessions = createH2Sessions(base);

  /** Starts a request; `onResponse` gets the response, `onError` any failure before it. */
  const start = async (
    req: HttpRequest,
    accept: string,
    onResponse: (head: ResponseHead, res: Readable, abort: () => void) => void,
    onError: (failure: ApiFailure) => void,
  ): Promise<void> => {
    const conn = await connections.connect();
    if ("ok" in conn) return onError(conn);
    let session: http2.ClientHttp2Session | "http/1.1" = "http/1.1";
    if (conn.tls !== undefined) {
      try {
        session = await sessions.session(conn.tls);
      } catch (error) {
        return onError(failureFromError(error, false, false));
      }
    }
    if (req.signal?.aborted === true) return onError(clientFailure(0, "Aborted", "request aborted"));
    const query = req.query?.toString() ?? "";
    const path = requestPath(`${basePath}${req.path}${query === "" ? "" : `?${query}`}`, base);
    // Encoded once: its length and what is written are the same bytes.
    const body = req.body === undefined ? undefined : Buffer.from(req.body);
    let settled = false;
    let timedOut = false;
    let timer: NodeJS.Timeout | undefined;
    let destroy: (error: Error) => void = () => undefined;
    const onAbort = (): void => destroy(new Error("aborted"));
    const cleanup = (): void => {
      clearTimeout(timer);
      req.signal?.removeEventListener("abort", onAbort);
    };
    const fail = (error: unknown): void => {
      if (settled) return;
      settled = true;
      cleanup();
      onError(failureFromError(error, req.signal?.aborted === true, timedOut));
    };
    const answer = (head: ResponseHead, res: Readable, abort: () => void): void => {
      settled = true;
      cleanup();
      // Rejected credentials (a rotated token): the next request loads them anew.
      if (head.status === 401) connections.invalidate();
      onResponse(head, res, abort);
    };
    destroy =
      session === "http/1.1"
        ? sendH1(conn, { req, path, accept, body, fail, answer })
        : sendH2(session, conn, { req, path, accept, body, fail, answer });
    if (settled) return;
    timer = setTimeout(() => {
      timedOut = true;
      destroy(new Error(`no response after ${req.timeoutMs} ms`));
    }, req.timeoutMs);
    req.signal?.addEventListener("abort", onAbort, { once: true });
  };

  /** Sends over the keep-alive agent; returns how to end the request. */
  const sendH1 = (
    conn: Connection,
    { req, path, accept, body, fail, answer }: Outgoing,
  ): ((error: Error) => void) => {
    const headers: Record<string, string> = { ...conn.headers, Accept: accept };
    if (body !== undefined) {
      headers["Content-Type"] = req.contentType ?? "application/json";
      headers["Content-Length"] = String(body.length);
    }
    const options: https.RequestOptions = { ...target, path, method: req.method, headers, agent: conn.agent };
    if (conn.auth !== undefined) options.auth = conn.auth;
    const request = send(options);
    request.on("error", fail);
    request.on("response", (res) =>
      answer({ status: res.statusCode ?? 0, headers: res.headers }, res, () => request.destroy()),
    );
    request.end(body);
    return (error) => request.destroy(error);
  };

  /** Sends as a stream of the HTTP/2 session; returns how to end the request. */
  const sendH2 = (
    session: http2.ClientHttp2Session,
    conn: Connection,
    { req, path, accept, body, fail, answer }: Outgoing,
  ): ((error: Error) => void) => {
    const headers: http2.OutgoingHttpHeaders = {
      ...conn.h2Headers,
      ":method": req.method,
      ":path": path,
      accept,
    };
    if (body !== undefined) {
      headers["content-type"] = req.contentType ?? "application/json";
      headers["content-length"] = body.length;
    }
    let stream: http2.ClientHttp2Stream;
    try {
      stream = session.request(headers, { endStream: body === undefined });
    } catch (error) {
      // The session ended between taking it and sending (a GOAWAY, a lost connection).
      fail(error);
      return () => undefined;
    }
    sessions.opened(session, stream);
    stream.on("error", fail);
    // Every stream closes, most after their response: the error is not built (a stack trace) each time.
    stream.on("close", () => fail(CLOSED_EARLY));
    stream.on("response", (h) =>
      answer(h2Head(h), stream, () => stream.close(http2.constants.NGHTTP2_CANCEL)),
    );
    if (body !== undefined) stream.end(body);
    return (error) => stream.destroy(error);
  };

  return {
    request(req) {
      return new Promise((resolve) => {
        void start(
          req,
          "application/json",
          (head, res) =>
            void readChunks(res, req.timeoutMs).then((chunks) =>
              resolve(answerOfChunks(head, chunks, req.decode)),
            ),
          resolve,
        );
      });
    },

    stream(req, sink) {
      return new Promise((resolve) => {
        void start(
          req,
          "application/json",
          (head, res, abort) => {
            const status = head.status;
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

    close: () => {
      sessions.close();
      connections.close();
    },
  };
}

export { type StreamSink, warningsOf } from "./transport-body.js";
