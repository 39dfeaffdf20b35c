/**
 * Kind → resource mapping from the API server's discovery documents (`/api/v1`, `/apis/<group>/<version>`),
 * cached per client. A kind missing from the cache triggers a new fetch of its group-version (coalesced),
 * so custom resources installed after start are found.
 */
import { clientFailure } from "./failure.js";
import type { ApiResourceInfo, ApiResult } from "./types.js";

/** Resolves kinds to resources; one per client. */
export interface Discovery {
  resource(apiVersion: string, kind: string, signal?: AbortSignal): Promise<ApiResult<ApiResourceInfo>>;
  /**
   * The kind of a resource (plural) of `apiVersion`, from what was already discovered; undefined when
   * that group-version was never fetched (no request is made).
   */
  cachedKind(apiVersion: string, resource: string): string | undefined;
}

/** The URL prefix of a group-version: `/api/v1` or `/apis/<group>/<version>`. */
export function groupVersionPath(apiVersion: string): string {
  return apiVersion.includes("/") ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
}

interface DiscoveredResource {
  name?: unknown;
  kind?: unknown;
  namespaced?: unknown;
  verbs?: unknown;
}

function parse(apiVersion: string, body: unknown): Map<string, ApiResourceInfo> {
  const byKind = new Map<string, ApiResourceInfo>();
  const resources = (body as { resources?: unknown } | undefined)?.resources;
  if (!Array.isArray(resources)) return byKind;
  for (const entry of resources as DiscoveredResource[]) {
    if (typeof entry.name !== "string" || typeof entry.kind !== "string" || entry.name.includes("/"))
      continue;
    byKind.set(entry.kind, {
      apiVersion,
      kind: entry.kind,
      name: entry.name,
      namespaced: entry.namespaced === true,
      verbs: Array.isArray(entry.verbs) ? entry.verbs.filter((v): v is string => typeof v === "string") : [],
    });
  }
  return byKind;
}

/** Creates a discovery cache over `get` (a rate-limited GET of an API path). */
export function createDiscovery(
  get: (path: string, signal?: AbortSignal) => Promise<ApiResult<unknown>>,
): Discovery {
  const cache = new Map<string, Map<string, ApiResourceInfo>>();
  const inflight = new Map<string, Promise<ApiResult<Map<string, ApiResourceInfo>>>>();

  const refresh = (
    apiVersion: string,
    signal?: AbortSignal,
  ): Promise<ApiResult<Map<string, ApiResourceInfo>>> => {
    const pending = inflight.get(apiVersion);
    if (pending !== undefined) return pending;
    const fetching = get(groupVersionPath(apiVersion), signal).then((result) => {
      inflight.delete(apiVersion);
      if (!result.ok) return result;
      const byKind = parse(apiVersion, result.value);
      cache.set(apiVersion, byKind);
      return { ok: true as const, status: result.status, value: byKind };
    });
    inflight.set(apiVersion, fetching);
    return fetching;
  };

  return {
    cachedKind(apiVersion, resource) {
      const byKind = cache.get(apiVersion);
      if (byKind === undefined) return undefined;
      for (const info of byKind.values()) if (info.name === resource) return info.kind;
      return undefined;
    },
    async resource(apiVersion, kind, signal) {
      const known = cache.get(apiVersion)?.get(kind);
      if (known !== undefined) return { ok: true, status: 200, value: known };
      const fetched = await refresh(apiVersion, signal);
      const unknown = clientFailure(404, "UnknownKind", `the server does not serve ${kind} in ${apiVersion}`);
      if (!fetched.ok) return fetched.status === 404 ? unknown : fetched;
      const info = fetched.value.get(kind);
      return info === undefined ? unknown : { ok: true, status: 200, value: info };
    },
  };
}
