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
import type { ApiFailure, ApiResult, WatchEnd } from "./types.js";

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
}

/** Receives the lines of a streamed response; `end` is called exactly once. */
export interface StreamSink {
  /** Returning a failure ends the stream with it (e.g. a line that is not JSON). */
  line(text: string): ApiFailure | undefined;
  end(outcome: WatchEnd): void;
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

function decode(text: string): unknown {
  if (text === "") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** Creates the transport for the current context of `kc`; nothing is sent until the first request. */
export function createTransport(kc: KubeConfig, userAgent: string): Transport {
  const server = kc.getCurrentCluster()?.server;
  if (server === undefined || server === "")
    throw new Error("kubeconfig: the current context has no cluster");
  const base = new URL(server);
  const basePath = base.pathname.replace(/\/+$/, "");
  const secure = base.protocol === "https:";
  const send = secure ? https.request : http.request;
  let agent: Agent | undefined;

  const connection = async (): Promise<Connection | ApiFailure> => {
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

  /** Starts a request; `onResponse` gets the response, `onError` any failure before it. */
  const start = async (
    req: HttpRequest,
    accept: string,
    onResponse: (res: http.IncomingMessage, abort: () => void) => void,
    onError: (failure: ApiFailure) => void,
  ): Promise<void> => {
    const conn = await connection();
    if ("ok" in conn) return onError(conn);
    if (req.signal?.aborted === true) return onError(clientFailure(0, "Aborted", "request aborted"));
    const query = req.query?.toString() ?? "";
    const url = new URL(`${basePath}${req.path}${query === "" ? "" : `?${query}`}`, base);
    const headers: Record<string, string> = { ...conn.headers, Accept: accept };
    if (req.body !== undefined) {
      headers["Content-Type"] = req.contentType ?? "application/json";
      headers["Content-Length"] = String(Buffer.byteLength(req.body));
    }
    const options: https.RequestOptions = { method: req.method, headers, agent: conn.agent };
    if (conn.auth !== undefined) options.auth = conn.auth;
    let settled = false;
    let timedOut = false;
    const request = send(url, options);
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
      onResponse(res, () => request.destroy());
    });
    request.end(req.body);
  };

  /** Reads a whole body, giving up after `timeoutMs` or when the connection is lost. */
  const readBody = (res: http.IncomingMessage, timeoutMs: number): Promise<string | ApiFailure> =>
    new Promise((resolve) => {
      const chunks: Buffer[] = [];
      let failure: ApiFailure | undefined;
      let ended = false;
      const timer = setTimeout(() => {
        failure = clientFailure(0, "Timeout", `the response body took more than ${timeoutMs} ms`);
        res.destroy();
      }, timeoutMs);
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        ended = true;
      });
      res.on("error", (error) => {
        failure ??= failureFromError(error, false, false);
      });
      res.on("close", () => {
        clearTimeout(timer);
        if (ended) resolve(Buffer.concat(chunks).toString("utf8"));
        else
          resolve(failure ?? clientFailure(0, "Unreachable", "connection lost while reading the response"));
      });
    });

  return {
    request(req) {
      return new Promise((resolve) => {
        void start(
          req,
          "application/json",
          (res) => {
            const status = res.statusCode ?? 0;
            void readBody(res, req.timeoutMs).then((text) => {
              if (typeof text !== "string") return resolve(text);
              const body = decode(text);
              if (status < 200 || status >= 300) resolve(failureFromResponse(status, body));
              else if (typeof body === "string")
                resolve(
                  clientFailure(status, "BadResponse", `the response is not JSON: ${body.slice(0, 200)}`),
                );
              else {
                const warnings = warningsOf(res.headers.warning);
                resolve(
                  warnings.length === 0
                    ? { ok: true, status, value: body }
                    : { ok: true, status, value: body, warnings },
                );
              }
            });
          },
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
            let buffered = "";
            let stopped = false;
            let ended = false;
            let failure: ApiFailure | undefined;
            let idle: NodeJS.Timeout | undefined;
            const arm = (): void => {
              clearTimeout(idle);
              idle = setTimeout(() => {
                failure = clientFailure(0, "Timeout", `no data for ${req.timeoutMs} ms`);
                abort();
              }, req.timeoutMs);
            };
            arm();
            res.setEncoding("utf8");
            res.on("data", (chunk: string) => {
              arm();
              buffered += chunk;
              let newline = buffered.indexOf("\n");
              while (newline >= 0 && !stopped && failure === undefined) {
                const line = buffered.slice(0, newline).trim();
                buffered = buffered.slice(newline + 1);
                failure = line === "" ? undefined : sink.line(line);
                if (failure !== undefined) abort();
                newline = buffered.indexOf("\n");
              }
            });
            res.on("end", () => {
              ended = true;
            });
            res.on("error", (error) => {
              failure ??= failureFromError(error, false, false);
            });
            res.on("close", () => {
              clearTimeout(idle);
              if (stopped) sink.end({ reason: "stopped" });
              else if (failure !== undefined) sink.end({ reason: "failed", failure });
              else if (ended) sink.end({ reason: "closed" });
              else
                sink.end({ reason: "failed", failure: clientFailure(0, "Unreachable", "connection lost") });
            });
            resolve({
              ok: true,
              status,
              value: () => {
                stopped = true;
                abort();
              },
            });
          },
          resolve,
        );
      });
    },

    close() {
      agent?.destroy();
      agent = undefined;
    },
  };
}

/**
 * The texts of RFC 7234 `Warning` headers (`299 - "text"`), as the API server sends admission
 * warnings; Node joins repeated headers with ", ", so the quoted texts are read one by one.
 */
export function warningsOf(header: string | string[] | undefined): string[] {
  if (header === undefined) return [];
  const joined = Array.isArray(header) ? header.join(", ") : header;
  const out: string[] = [];
  const pattern = /\d{3} \S+ "((?:[^"\\]|\\.)*)"/g;
  for (const match of joined.matchAll(pattern)) out.push((match[1] ?? "").replace(/\\(.)/g, "$1"));
  return out;
}
