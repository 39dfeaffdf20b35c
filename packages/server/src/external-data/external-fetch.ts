/**
 * Fetching what context entries ask for, through the controller's client: a ConfigMap, an API-server
 * path (an object, a list read page by page, or a POST), a service call, or a GlobalContextEntry's
 * data; each answer bounded by a response size and each fetch cut at a timeout. Failures are results
 * (`{ ok: false, error }`), never exceptions; errors name the request without its headers.
 */
import type { JsonValue, KubeObject } from "@kyverno-ts/api";
import type { LoadResult } from "@kyverno-ts/engine";
import type { ApiResult, KubeClient } from "@kyverno-ts/kube";
import { kindOfResource, parseApiPath } from "./api-path.js";
import { type ServiceCall, type ServiceFetch, serviceCall } from "./service-call.js";

/** What a context entry asks for. */
export type ExternalRequest =
  | { type: "configMap"; namespace: string; name: string }
  | { type: "apiCall"; call: ServiceCall & { urlPath?: string } }
  | { type: "globalReference"; name: string };

/** What every fetch needs: the client and the limits. */
export interface FetchLimits {
  client: KubeClient;
  /** Largest response kept, in bytes of JSON. */
  maxBytes: number;
  /** Per fetch. */
  timeoutMs: number;
  /** For `apiCall.service` entries (default: undici's `fetch`). */
  fetch?: ServiceFetch;
}

/** How errors name a request (never with its headers, which may hold credentials). */
export const describeRequest = (r: ExternalRequest): string =>
  r.type === "configMap"
    ? `configMap ${r.namespace}/${r.name}`
    : r.type === "globalReference"
      ? `globalReference ${r.name}`
      : `apiCall ${r.call.method} ${r.call.urlPath ?? r.call.url ?? ""} ${JSON.stringify(r.call.data ?? null)}`;

/** A failed answer. */
export const fail = (error: string): LoadResult => ({ ok: false, error });
const failure = (r: ApiResult<unknown> & { ok: false }): LoadResult => fail(`${r.reason}: ${r.message}`);

const bounded = (value: JsonValue, what: string, maxBytes: number): LoadResult =>
  Buffer.byteLength(JSON.stringify(value)) > maxBytes
    ? fail(`${what}: response larger than ${maxBytes} bytes`)
    : { ok: true, value };

/** As upstream: the ConfigMap's data and metadata (without managed fields). */
export function configMapValue(object: KubeObject, what: string, maxBytes: number): LoadResult {
  const { managedFields: _managed, ...metadata } = (object.metadata ?? {}) as Record<string, JsonValue>;
  return bounded({ data: (object.data ?? {}) as JsonValue, metadata }, what, maxBytes);
}

/** Lists page by page, giving up once the items exceed the byte budget. */
async function listBounded(
  { client, maxBytes }: FetchLimits,
  query: {
    apiVersion: string;
    kind: string;
    namespace?: string;
    labelSelector?: string;
    fieldSelector?: string;
  },
  what: string,
  signal: AbortSignal,
): Promise<LoadResult> {
  const items: JsonValue[] = [];
  let bytes = 0;
  let token: string | undefined;
  let listMeta: { apiVersion: string; kind: string; resourceVersion: string } | undefined;
  do {
    const page = await client.list<KubeObject>({
      ...query,
      limit: 500,
      signal,
      ...(token === undefined ? {} : { continue: token }),
    });
    if (!page.ok) return failure(page);
    for (const item of page.value.items) {
      bytes += Buffer.byteLength(JSON.stringify(item));
      if (bytes > maxBytes) return fail(`${what}: response larger than ${maxBytes} bytes`);
      items.push(item as JsonValue);
    }
    listMeta ??= {
      apiVersion: page.value.apiVersion,
      kind: page.value.kind,
      resourceVersion: page.value.metadata.resourceVersion,
    };
    token = page.value.metadata.continue || undefined;
  } while (token !== undefined);
  return {
    ok: true,
    value: {
      apiVersion: listMeta?.apiVersion ?? query.apiVersion,
      kind: listMeta?.kind ?? `${query.kind}List`,
      metadata: { resourceVersion: listMeta?.resourceVersion ?? "" },
      items,
    },
  };
}

/** An apiCall with a `urlPath`: get, list or create through the client. */
async function fromApiServer(
  limits: FetchLimits,
  call: ServiceCall & { urlPath: string },
  signal: AbortSignal,
): Promise<LoadResult> {
  const { client, maxBytes } = limits;
  const what = `apiCall ${call.urlPath}`;
  const path = parseApiPath(call.urlPath);
  if (typeof path === "string") return fail(path);
  const kind = await kindOfResource(client, path.apiVersion, path.resource, signal);
  if (kind === undefined)
    return fail(`${what}: the server does not serve ${path.resource} in ${path.apiVersion}`);
  const ns = path.namespace === "" ? {} : { namespace: path.namespace };
  if (call.method === "POST") {
    const body = (call.data ?? {}) as KubeObject;
    const created = await client.create<KubeObject>(
      { apiVersion: path.apiVersion, kind, ...body, metadata: { ...body.metadata, ...ns } },
      { signal },
    );
    return created.ok ? bounded(created.value as JsonValue, what, maxBytes) : failure(created);
  }
  if (path.name !== "") {
    const got = await client.get<KubeObject>(
      { apiVersion: path.apiVersion, kind, name: path.name, ...ns },
      { signal },
    );
    return got.ok ? bounded(got.value as JsonValue, what, maxBytes) : failure(got);
  }
  return listBounded(
    limits,
    {
      apiVersion: path.apiVersion,
      kind,
      ...ns,
      ...(path.labelSelector === undefined ? {} : { labelSelector: path.labelSelector }),
      ...(path.fieldSelector === undefined ? {} : { fieldSelector: path.fieldSelector }),
    },
    what,
    signal,
  );
}

/** An apiCall: an API-server path, or a service. */
function apiCall(
  limits: FetchLimits,
  call: ServiceCall & { urlPath?: string },
  signal: AbortSignal,
): Promise<LoadResult> {
  return call.urlPath !== undefined
    ? fromApiServer(limits, { ...call, urlPath: call.urlPath }, signal)
    : serviceCall(call, {
        maxBytes: limits.maxBytes,
        signal,
        ...(limits.fetch === undefined ? {} : { fetch: limits.fetch }),
      });
}

/** A GlobalContextEntry's data: the objects it tracks, or its API call's response. */
async function globalEntry(limits: FetchLimits, name: string, signal: AbortSignal): Promise<LoadResult> {
  const { client } = limits;
  const got = await client.get<KubeObject>(
    { apiVersion: "kyverno.io/v2alpha1", kind: "GlobalContextEntry", name },
    { signal },
  );
  if (!got.ok) return failure(got);
  const spec = (got.value.spec ?? {}) as {
    kubernetesResource?: { group?: string; version?: string; resource?: string; namespace?: string };
    apiCall?: {
      urlPath?: string;
      method?: "GET" | "POST";
      data?: Array<{ key: string; value: JsonValue }>;
      service?: { url?: string; caBundle?: string; headers?: Array<{ key: string; value: string }> };
    };
  };
  if (spec.kubernetesResource !== undefined) {
    const { group = "", version = "v1", resource = "", namespace = "" } = spec.kubernetesResource;
    const apiVersion = group === "" ? version : `${group}/${version}`;
    const kind = await kindOfResource(client, apiVersion, resource, signal);
    if (kind === undefined) return fail(`the server does not serve ${resource} in ${apiVersion}`);
    const listed = await listBounded(
      limits,
      { apiVersion, kind, ...(namespace === "" ? {} : { namespace }) },
      `globalReference ${name}`,
      signal,
    );
    // Upstream hands policies the objects themselves, as an array.
    return listed.ok ? { ok: true, value: (listed.value as { items: JsonValue[] }).items } : listed;
  }
  const call = spec.apiCall;
  if (call === undefined)
    return fail(`GlobalContextEntry ${name} has neither kubernetesResource nor apiCall`);
  const data =
    call.data === undefined ? undefined : Object.fromEntries(call.data.map((d) => [d.key, d.value]));
  return apiCall(
    limits,
    {
      method: call.method ?? "GET",
      ...(call.urlPath === undefined ? { url: call.service?.url ?? "" } : { urlPath: call.urlPath }),
      ...(data === undefined ? {} : { data }),
      ...(call.service?.headers ? { headers: call.service.headers } : {}),
      ...(call.service?.caBundle ? { caBundle: call.service.caBundle } : {}),
    },
    signal,
  );
}

async function load(limits: FetchLimits, request: ExternalRequest, signal: AbortSignal): Promise<LoadResult> {
  if (request.type === "configMap") {
    const got = await limits.client.get<KubeObject>(
      { apiVersion: "v1", kind: "ConfigMap", namespace: request.namespace, name: request.name },
      { signal },
    );
    return got.ok ? configMapValue(got.value, describeRequest(request), limits.maxBytes) : failure(got);
  }
  if (request.type === "apiCall") return apiCall(limits, request.call, signal);
  return globalEntry(limits, request.name, signal);
}

/** One fetch, cut at `timeoutMs` (listeners, not `AbortSignal.any`, so nothing stays on `parent`). */
export async function fetchRequest(
  limits: FetchLimits,
  request: ExternalRequest,
  parent: AbortSignal,
): Promise<LoadResult> {
  const { timeoutMs } = limits;
  const limit = new AbortController();
  const abort = (): void => limit.abort();
  const timer = setTimeout(abort, timeoutMs);
  parent.addEventListener("abort", abort, { once: true });
  const timedOut = () => limit.signal.aborted && !parent.aborted;
  try {
    const result = await load(limits, request, limit.signal);
    return !result.ok && timedOut()
      ? fail(`${describeRequest(request)}: timed out after ${timeoutMs} ms`)
      : result;
  } catch (error) {
    return fail(timedOut() ? `${describeRequest(request)}: timed out after ${timeoutMs} ms` : String(error));
  } finally {
    clearTimeout(timer);
    parent.removeEventListener("abort", abort);
  }
}
