/**
 * The one answer to "which kind is that?" for every controller, over the kube package's table of the
 * kinds Kubernetes serves (`builtinApiVersions`) and the cluster's CustomResourceDefinitions, each
 * answer confirmed by discovery:
 * - webhook rules: a policy's kind selector (`Pod`, `Pod/exec`, `apps/v1/Deployment`, `*`) → the
 *   group / version / resource triples a rule names (`resources`);
 * - informers: a kind name (`Deployment`, `Widget`) → the apiVersion it is listed and watched under
 *   (`watchable`);
 * - admission requests: `apps/v1 deployments` → `Deployment` (`resourceKind`), for subresources.
 */
import type { KubeObject } from "@kyverno-ts/api";
import { hasWildcard, type KindSelector, parseKindSelector } from "@kyverno-ts/engine";
import { type ApiFailure, builtinApiVersions, type KubeClient } from "@kyverno-ts/kube";
import { builtinResourceKind, type ResourceKindOf } from "../controllers/admission/request.js";

/** What a webhook rule names: `resource` is the plural, with `/subresource` when there is one. */
export interface ResolvedResource {
  group: string;
  version: string;
  resource: string;
}

/**
 * Outcome of resolving one selector: the resources, or why not: `Unknown` when the server does not
 * serve the kind (yet), `ApiError` when discovery could not be asked (try again; do not narrow).
 */
export type Resolution =
  | { ok: true; resources: ResolvedResource[] }
  | { ok: false; reason: "Unknown" | "ApiError"; message: string };

/** A kind the server serves and a controller can list and watch. */
export interface WatchableKind {
  apiVersion: string;
  kind: string;
  namespaced: boolean;
}

/** Outcome of resolving one kind for an informer. */
export type KindResolution =
  | { ok: true; value: WatchableKind }
  | { ok: false; reason: "Unknown" | "NotWatchable" | "ApiError"; message: string; failure?: ApiFailure };

/** Resolves kinds; see `createKindResolver`. */
export interface KindResolver {
  /** A kind selector as the webhook rules need it; successes are cached for the resolver's lifetime. */
  resources(selector: string, signal?: AbortSignal): Promise<Resolution>;
  /** A kind name as an informer needs it (the preferred or storage version); never cached. */
  watchable(kind: string, signal?: AbortSignal): Promise<KindResolution>;
  /** The kind of an addressed resource: built-in ones, then what discovery has already cached. */
  resourceKind: ResourceKindOf;
}

function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.lastIndexOf("/");
  return slash < 0
    ? { group: "", version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/** Served apiVersions of a CRD for `kind`, storage version first. */
function crdApiVersions(crd: KubeObject, kind: string): string[] {
  const spec = crd.spec as { group?: unknown; names?: { kind?: unknown }; versions?: unknown } | undefined;
  if (spec?.names?.kind !== kind || typeof spec.group !== "string" || !Array.isArray(spec.versions))
    return [];
  const group = spec.group;
  const versions = (spec.versions as Array<{ name?: unknown; served?: unknown; storage?: unknown }>)
    .filter((v) => typeof v.name === "string" && v.served !== false)
    .sort((x, y) => Number(y.storage === true) - Number(x.storage === true));
  return versions.map((v) => `${group}/${String(v.name)}`);
}

const withSub = (plural: string, sub: string): string => (sub === "" ? plural : `${plural}/${sub}`);

/** Creates a resolver over `client`'s discovery (which the client caches). */
export function createKindResolver(options: { client: KubeClient }): KindResolver {
  const { client } = options;
  const cache = new Map<string, ResolvedResource[]>();

  /** The apiVersions a kind is served under, preferred (built-in) or storage (CRD) version first. */
  const apiVersionsOf = async (
    kind: string,
    signal?: AbortSignal,
  ): Promise<{ ok: true; apiVersions: readonly string[] } | ApiFailure> => {
    const builtin = builtinApiVersions(kind);
    if (builtin !== undefined) return { ok: true, apiVersions: builtin };
    const listed = await client.list<KubeObject>({
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      ...(signal === undefined ? {} : { signal }),
    });
    if (!listed.ok) return listed;
    return { ok: true, apiVersions: listed.value.items.flatMap((crd) => crdApiVersions(crd, kind)) };
  };

  const resolveExact = async (sel: KindSelector, signal?: AbortSignal): Promise<Resolution> => {
    let candidates: readonly string[];
    if (!hasWildcard(sel.group) && !hasWildcard(sel.version)) {
      candidates = [sel.group === "" ? sel.version : `${sel.group}/${sel.version}`];
    } else {
      const found = await apiVersionsOf(sel.kind, signal);
      if (!found.ok)
        return {
          ok: false,
          reason: "ApiError",
          message: `listing CustomResourceDefinitions: ${found.message}`,
        };
      candidates = found.apiVersions.filter((apiVersion) => {
        const gv = splitApiVersion(apiVersion);
        const groupOk = sel.group === "*" || sel.group === gv.group;
        return groupOk && (sel.version === "*" || sel.version === gv.version);
      });
    }
    const resources: ResolvedResource[] = [];
    for (const apiVersion of candidates) {
      const info = await client.resource(apiVersion, sel.kind, signal);
      if (info.ok)
        resources.push({
          ...splitApiVersion(apiVersion),
          resource: withSub(info.value.name, sel.subresource),
        });
      else if (info.reason !== "UnknownKind") return { ok: false, reason: "ApiError", message: info.message };
    }
    return resources.length > 0
      ? { ok: true, resources }
      : { ok: false, reason: "Unknown", message: `the server does not serve the kind ${sel.kind}` };
  };

  return {
    async resources(spec, signal) {
      const known = cache.get(spec);
      if (known) return { ok: true, resources: known };
      const sel = parseKindSelector(spec);
      if (sel === undefined) return { ok: false, reason: "Unknown", message: `"${spec}" is not a kind` };
      let result: Resolution;
      if (sel.kind === "" || hasWildcard(sel.kind)) {
        const group = sel.group === "*" || hasWildcard(sel.group) ? "*" : sel.group;
        const version = sel.version === "*" || hasWildcard(sel.version) ? "*" : sel.version;
        const sub = sel.subresource === "" ? "" : hasWildcard(sel.subresource) ? "*" : sel.subresource;
        result = { ok: true, resources: [{ group, version, resource: withSub("*", sub) }] };
      } else result = await resolveExact(sel, signal);
      if (result.ok) cache.set(spec, result.resources);
      return result;
    },

    async watchable(kind, signal) {
      const found = await apiVersionsOf(kind, signal);
      if (!found.ok) return { ok: false, reason: "ApiError", message: found.message, failure: found };
      const apiVersion = found.apiVersions[0];
      if (apiVersion === undefined)
        return { ok: false, reason: "Unknown", message: `no built-in kind or CRD named ${kind}` };
      const info = await client.resource(apiVersion, kind, signal);
      if (!info.ok) {
        return info.reason === "UnknownKind"
          ? { ok: false, reason: "Unknown", message: info.message }
          : { ok: false, reason: "ApiError", message: info.message, failure: info };
      }
      if (!info.value.verbs.includes("list") || !info.value.verbs.includes("watch"))
        return {
          ok: false,
          reason: "NotWatchable",
          message: `${apiVersion} ${kind} cannot be listed and watched`,
        };
      return { ok: true, value: { apiVersion, kind, namespaced: info.value.namespaced } };
    },

    resourceKind: (apiVersion, resource) =>
      builtinResourceKind(apiVersion, resource) ?? client.cachedKind(apiVersion, resource),
  };
}
