/**
 * What every request of the client goes through: the shared token bucket, resolving a kind's URL by
 * discovery, sending through the transport with the per-request timeout, reporting to `onQuery`; and
 * opening a watch the same way.
 */
import type { Clock } from "@kyverno-ts/api";
import type { TokenBucket } from "../ratelimit/token-bucket.js";
import { createDiscovery, type Discovery, groupVersionPath } from "./discovery.js";
import { clientFailure } from "./failure.js";
import { watchParams, withSignal } from "./request-params.js";
import type { HttpRequest, Transport } from "./transport.js";
import type {
  ApiFailure,
  ApiResourceInfo,
  ApiResult,
  QueryEvent,
  QueryOperation,
  WatchEnd,
  WatchEvent,
  WatchQuery,
  WatchStream,
} from "./types.js";
import { decodeWatchLine } from "./watch.js";

/** A resolved request target: how the kind is served, its URL path and namespace. */
export interface Target {
  info: ApiResourceInfo;
  path: string;
  namespace: string;
}

/** The request path shared by the client's methods; see `createRequestCore`. */
export interface RequestCore {
  readonly discovery: Discovery;
  /** Resolves the URL of a collection (no name) or of one object (and subresource). */
  target(
    ref: { apiVersion?: string; kind?: string; namespace?: string; name?: string },
    scope: "collection" | "object" | "query",
    subresource?: string,
    signal?: AbortSignal,
  ): Promise<Target | ApiFailure>;
  /** Sends one request to a resolved target and reports it. */
  call<T>(
    operation: QueryOperation,
    kind: string,
    resolved: Target | ApiFailure,
    req: Omit<HttpRequest, "path" | "timeoutMs">,
  ): Promise<ApiResult<T>>;
  /** Opens a watch on a kind; resolves once the server accepted it. */
  watch<T>(query: WatchQuery, onEvent: (event: WatchEvent<T>) => void): Promise<ApiResult<WatchStream>>;
}

/** Silence after which a watch is presumed dead: its server-side timeout plus as much again, at most 30 s more. */
function idleLimit(timeoutSeconds: number): number {
  const ms = timeoutSeconds * 1000;
  return ms + Math.min(30000, ms);
}

/** What `openWatch` uses of the request path. */
interface WatchParts {
  transport: Transport;
  clock: Clock;
  limited<T>(req: HttpRequest, run: (req: HttpRequest) => Promise<ApiResult<T>>): Promise<ApiResult<T>>;
  target: RequestCore["target"];
  report(operation: QueryOperation, kind: string, namespace: string, status: number, start: number): void;
}

/** Opens a watch: the stream's lines decoded into events for `onEvent`, `done` once it ends. */
async function openWatch<T>(
  parts: WatchParts,
  query: WatchQuery,
  onEvent: (event: WatchEvent<T>) => void,
): Promise<ApiResult<WatchStream>> {
  const { transport, clock, limited, target, report } = parts;
  const resolved = await target(query, "query", undefined, query.signal);
  if ("ok" in resolved) return resolved;
  const { params, timeoutSeconds } = watchParams(query);
  const req = withSignal(
    {
      method: "GET" as const,
      path: resolved.path,
      query: params,
      timeoutMs: idleLimit(timeoutSeconds),
    },
    query.signal,
  );
  let finish: (end: WatchEnd) => void = () => undefined;
  const done = new Promise<WatchEnd>((resolve) => {
    finish = resolve;
  });
  const start = clock.now();
  const opened = await limited(req, (r) =>
    transport.stream(r, {
      line(text) {
        const event = decodeWatchLine<T>(text);
        if ("ok" in event) return event;
        try {
          onEvent(event);
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          return clientFailure(0, "HandlerError", `watch event handler threw: ${message}`);
        }
        return undefined;
      },
      end: (end) => finish(end),
    }),
  );
  report("watch", query.kind, resolved.namespace, opened.status, start);
  if (!opened.ok) return opened;
  return { ok: true, status: opened.status, value: { done, stop: opened.value } };
}

/** Creates the request path over a transport and a token bucket. */
export function createRequestCore(options: {
  transport: Transport;
  bucket: TokenBucket;
  clock: Clock;
  timeoutMs: number;
  clientType: string;
  onQuery?: (event: QueryEvent) => void;
}): RequestCore {
  const { transport, bucket, clock, timeoutMs, clientType } = options;
  const limited = async <T>(
    req: HttpRequest,
    run: (req: HttpRequest) => Promise<ApiResult<T>>,
  ): Promise<ApiResult<T>> => {
    if (!(await bucket.take(req.signal))) return clientFailure(0, "Aborted", "request aborted");
    return run(req);
  };

  const discovery = createDiscovery((path, signal) => {
    const req: HttpRequest = { method: "GET", path, timeoutMs };
    if (signal !== undefined) req.signal = signal;
    return limited(req, (r) => transport.request(r));
  });

  const report = (
    operation: QueryOperation,
    kind: string,
    namespace: string,
    status: number,
    start: number,
  ) =>
    options.onQuery?.({
      operation,
      clientType,
      kind,
      namespace,
      status,
      durationMs: clock.now() - start,
    });

  const target: RequestCore["target"] = async (ref, scope, subresource, signal) => {
    if (ref.apiVersion === undefined || ref.apiVersion === "" || ref.kind === undefined || ref.kind === "")
      return clientFailure(0, "InvalidRequest", "apiVersion and kind are required");
    const resolved = await discovery.resource(ref.apiVersion, ref.kind, signal);
    if (!resolved.ok) return resolved;
    const info = resolved.value;
    const namespace = info.namespaced ? (ref.namespace ?? "") : "";
    if (info.namespaced && namespace === "" && scope !== "query")
      return clientFailure(0, "InvalidRequest", `${ref.kind} is namespaced: a namespace is required`);
    let path = groupVersionPath(ref.apiVersion);
    if (namespace !== "") path += `/namespaces/${encodeURIComponent(namespace)}`;
    path += `/${info.name}`;
    if (scope === "object") {
      if (ref.name === undefined || ref.name === "")
        return clientFailure(0, "InvalidRequest", "metadata.name is required");
      path += `/${encodeURIComponent(ref.name)}`;
      if (subresource !== undefined) path += `/${encodeURIComponent(subresource)}`;
    }
    return { info, path, namespace };
  };

  const call = async <T>(
    operation: QueryOperation,
    kind: string,
    resolved: Target | ApiFailure,
    req: Omit<HttpRequest, "path" | "timeoutMs">,
  ): Promise<ApiResult<T>> => {
    if ("ok" in resolved) return resolved;
    const start = clock.now();
    const result = await limited({ ...req, path: resolved.path, timeoutMs }, (r) => transport.request(r));
    report(operation, kind, resolved.namespace, result.status, start);
    return result as ApiResult<T>;
  };

  const watch: RequestCore["watch"] = (query, onEvent) =>
    openWatch({ transport, clock, limited, target, report }, query, onEvent);

  return { discovery, target, call, watch };
}
