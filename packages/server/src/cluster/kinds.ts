/**
 * From the `resources.kinds` entries of policies (`Pod`, `Pod/exec`, `apps/v1/Deployment`, `*`) to the
 * group / version / resource triples a webhook rule names. Bare kinds get their API group from the
 * kube package's table of the kinds Kubernetes serves, or from the cluster's CustomResourceDefinitions; the resource
 * (plural) and the confirmation that the server serves the kind come from discovery.
 */
import type { KubeObject } from "@kyverno-ts/api";
import { hasWildcard, type KindSelector, parseKindSelector } from "@kyverno-ts/engine";
import { builtinApiVersions, type KubeClient } from "@kyverno-ts/kube";

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

/** Resolves selectors; see `createKindResolver`. */
export interface KindResolver {
  resolve(selector: string, signal?: AbortSignal): Promise<Resolution>;
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

/**
 * Creates a resolver over `client`'s discovery. Successful resolutions are cached for the resolver's
 * lifetime (one per leadership term); failures are not, so a CRD installed later is found next time.
 */
export function createKindResolver(options: { client: KubeClient }): KindResolver {
  const { client } = options;
  const cache = new Map<string, ResolvedResource[]>();

  const fromCrds = async (kind: string, signal?: AbortSignal): Promise<string[] | string> => {
    const listed = await client.list<KubeObject>({
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      ...(signal ? { signal } : {}),
    });
    if (!listed.ok) return `listing CustomResourceDefinitions: ${listed.message}`;
    return listed.value.items.flatMap((crd) => crdApiVersions(crd, kind));
  };

  const resolveExact = async (sel: KindSelector, signal?: AbortSignal): Promise<Resolution> => {
    let candidates: string[];
    if (!hasWildcard(sel.group) && !hasWildcard(sel.version)) {
      candidates = [sel.group === "" ? sel.version : `${sel.group}/${sel.version}`];
    } else {
      const builtin = builtinApiVersions(sel.kind);
      const found = builtin ? [...builtin] : await fromCrds(sel.kind, signal);
      if (typeof found === "string") return { ok: false, reason: "ApiError", message: found };
      candidates = found.filter((apiVersion) => {
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
    async resolve(spec, signal) {
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
  };
}
