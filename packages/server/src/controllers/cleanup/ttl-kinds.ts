/**
 * Which kinds the TTL controller watches: those the server serves with `list`, `watch` and `delete`
 * (the built-in table's preferred versions and every CRD's served version) that this controller may
 * list, watch and delete everywhere.
 */
import { BUILTIN_RESOURCES, type KubeClient } from "@kyverno-ts/kube";

/** A kind the controller watches for the label. */
export interface TtlKind {
  apiVersion: string;
  kind: string;
  /** The plural resource name. */
  resource: string;
  namespaced: boolean;
}

/** Whether this controller may do `verb` on a resource everywhere (a SelfSubjectAccessReview). */
export type AccessCheck = (
  group: string,
  resource: string,
  verb: string,
  signal: AbortSignal,
) => Promise<boolean>;

const REQUIRED = ["list", "watch", "delete"];

/** An apiVersion's group and version (`v1`: the core group). */
export const splitApiVersion = (apiVersion: string) => {
  const slash = apiVersion.lastIndexOf("/");
  return slash < 0
    ? { group: "", version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
};

/** The kinds worth asking about: the built-in table (preferred versions) and every CRD's served version. */
async function candidates(
  client: KubeClient,
  signal: AbortSignal,
): Promise<Array<{ apiVersion: string; kind: string }>> {
  const out = BUILTIN_RESOURCES.flatMap((b) =>
    b.apiVersions[0] ? [{ apiVersion: b.apiVersions[0], kind: b.kind }] : [],
  );
  const crds = await client.list({
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    signal,
  });
  if (!crds.ok) throw new Error(`listing CustomResourceDefinitions: ${crds.message}`);
  for (const crd of crds.value.items) {
    const spec = crd.spec as {
      group?: string;
      names?: { kind?: string };
      versions?: Array<{ name?: string; served?: boolean; storage?: boolean }>;
    };
    const versions = (spec.versions ?? []).filter((v) => v.served !== false);
    const version = versions.find((v) => v.storage) ?? versions[0];
    if (spec.group && spec.names?.kind && version?.name)
      out.push({ apiVersion: `${spec.group}/${version.name}`, kind: spec.names.kind });
  }
  return out;
}

/** The kinds to watch now: served with the verbs the controller needs, and allowed to it. */
export async function discoverTtlKinds(
  client: KubeClient,
  access: AccessCheck,
  signal: AbortSignal,
): Promise<TtlKind[]> {
  const found: TtlKind[] = [];
  for (const c of await candidates(client, signal)) {
    const info = await client.resource(c.apiVersion, c.kind, signal);
    if (!info.ok || info.value.name.includes("/") || !REQUIRED.every((v) => info.value.verbs.includes(v)))
      continue;
    const { group } = splitApiVersion(c.apiVersion);
    const allowed = await Promise.all(REQUIRED.map((verb) => access(group, info.value.name, verb, signal)));
    if (allowed.every(Boolean))
      found.push({ ...c, resource: info.value.name, namespaced: info.value.namespaced });
  }
  return found;
}
