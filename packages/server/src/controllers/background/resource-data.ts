/**
 * What generate and mutate-existing rules read besides context entries: clone sources
 * (`getResource`), cloneList sources and targets (`listResources`), and CEL's `resource.Get` /
 * `resource.List` (`kubeResource`, by plural resource name). The engine evaluates synchronously,
 * so as the scan context does for ConfigMaps and API calls, reads happen in rounds: the evaluation runs
 * with the loader answering from what was fetched, what it asked for and did not get is fetched, and
 * the evaluation runs again (at most `maxRounds` times). One `ResourceData` serves one UpdateRequest:
 * every read is fresh.
 */
import type { JsonValue, LabelSelector } from "@kyverno-ts/api";
import type { ContextLoader, LoadResult } from "@kyverno-ts/engine";
import { builtinApiVersions, builtinKindOf, type KubeClient } from "@kyverno-ts/kube";
import type { ScanContext } from "../../external-data/scan-context.js";

/** A loader and the round-trip evaluation around it. */
export interface ResourceData {
  readonly loader: ContextLoader;
  evaluate<T>(evaluate: () => T, signal: AbortSignal): Promise<T>;
  /** The namespace of an object read from the cluster (a clone source), by its uid. */
  namespaceOf(uid: string): string | undefined;
}

type Read =
  | { type: "get"; apiVersion: string; kind: string; namespace: string; name: string }
  | { type: "list"; apiVersion: string; kind: string; namespace: string; selector: string }
  | {
      type: "resource";
      apiVersion: string;
      resource: string;
      namespace: string;
      name?: string;
      selector: string;
    };

/** `matchLabels` / `matchExpressions` as a label selector string; undefined when it cannot be one. */
export function selectorString(selector: LabelSelector | undefined): string {
  if (selector === undefined) return "";
  const parts = Object.entries(selector.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`);
  for (const e of selector.matchExpressions ?? []) {
    const values = (e.values ?? []).join(",");
    if (e.operator === "In") parts.push(`${e.key} in (${values})`);
    else if (e.operator === "NotIn") parts.push(`${e.key} notin (${values})`);
    else if (e.operator === "Exists") parts.push(e.key);
    else if (e.operator === "DoesNotExist") parts.push(`!${e.key}`);
  }
  return parts.join(",");
}

/** `v1/Secret`, `apps/v1/Deployment` or a bare built-in `Secret` → apiVersion and kind. */
export function splitKind(spelling: string): { apiVersion: string; kind: string } | undefined {
  const slash = spelling.lastIndexOf("/");
  if (slash > 0) return { apiVersion: spelling.slice(0, slash), kind: spelling.slice(slash + 1) };
  const [apiVersion] = builtinApiVersions(spelling) ?? [];
  return apiVersion === undefined ? undefined : { apiVersion, kind: spelling };
}

const keyOf = (r: Read): string =>
  r.type === "get"
    ? `get\u0000${r.apiVersion}\u0000${r.kind}\u0000${r.namespace}\u0000${r.name}`
    : r.type === "list"
      ? `list\u0000${r.apiVersion}\u0000${r.kind}\u0000${r.namespace}\u0000${r.selector}`
      : `resource\u0000${r.apiVersion}\u0000${r.resource}\u0000${r.namespace}\u0000${r.name ?? ""}\u0000${r.selector}`;

/** The kind of a plural resource name: built-in, or from the server's discovery. */
export async function kindOfResource(
  client: KubeClient,
  apiVersion: string,
  resource: string,
  signal: AbortSignal,
): Promise<string | undefined> {
  const group = apiVersion.includes("/") ? apiVersion.slice(0, apiVersion.indexOf("/")) : "";
  const builtin = builtinKindOf(group, resource);
  if (builtin !== undefined) return builtin;
  const cached = client.cachedKind(apiVersion, resource);
  if (cached !== undefined) return cached;
  // Discovering the group-version (any kind name) fills the cache `cachedKind` reads.
  await client.resource(apiVersion, "", signal);
  return client.cachedKind(apiVersion, resource);
}

/** CEL's `resource.Get` / `resource.List`: the plural's kind, then a get or a list (as a `…List`). */
async function fetchResource(
  client: KubeClient,
  read: Extract<Read, { type: "resource" }>,
  signal: AbortSignal,
): Promise<LoadResult> {
  const kind = await kindOfResource(client, read.apiVersion, read.resource, signal);
  if (kind === undefined)
    return { ok: false, error: `the server does not serve ${read.resource} in ${read.apiVersion}` };
  const { apiVersion, namespace } = read;
  if (read.name !== undefined)
    return fetchRead(client, { type: "get", apiVersion, kind, namespace, name: read.name }, signal);
  const items = await fetchRead(
    client,
    { type: "list", apiVersion, kind, namespace, selector: read.selector },
    signal,
  );
  if (!items.ok) return items;
  return { ok: true, value: { apiVersion, kind: `${kind}List`, items: items.value } };
}

/** One read from the API server. */
async function fetchRead(client: KubeClient, read: Read, signal: AbortSignal): Promise<LoadResult> {
  if (read.type === "resource") return fetchResource(client, read, signal);
  if (read.type === "get") {
    const ref = { apiVersion: read.apiVersion, kind: read.kind, name: read.name };
    const got = await client.get(read.namespace ? { ...ref, namespace: read.namespace } : ref, { signal });
    if (got.ok) return { ok: true, value: got.value as unknown as JsonValue };
    return { ok: false, error: `${read.kind} ${read.namespace}/${read.name}: ${got.message}` };
  }
  const listed = await client.list({
    apiVersion: read.apiVersion,
    kind: read.kind,
    ...(read.namespace ? { namespace: read.namespace } : {}),
    ...(read.selector ? { labelSelector: read.selector } : {}),
    signal,
  });
  if (listed.ok) return { ok: true, value: listed.value.items as unknown as JsonValue };
  return { ok: false, error: `list ${read.kind}: ${listed.message}` };
}

/** The namespace of the object with `uid` among the answers read so far. */
function namespaceIn(answers: Iterable<LoadResult>, uid: string): string | undefined {
  const match = (o: unknown): string | undefined => {
    const meta = (o as { metadata?: { uid?: unknown; namespace?: unknown } } | null)?.metadata;
    return meta?.uid === uid ? String(meta.namespace ?? "") : undefined;
  };
  for (const answer of answers) {
    if (!answer.ok) continue;
    const value = answer.value as unknown;
    const items = Array.isArray(value) ? value : ((value as { items?: unknown[] } | null)?.items ?? [value]);
    for (const item of items) {
      const ns = match(item);
      if (ns !== undefined) return ns;
    }
  }
  return undefined;
}

/** Creates the data of one UpdateRequest over a scan context (which answers the context entries). */
export function createResourceData(options: {
  client: KubeClient;
  scan: ScanContext;
  maxRounds?: number;
}): ResourceData {
  const { client, scan } = options;
  const maxRounds = options.maxRounds ?? 4;
  const answers = new Map<string, LoadResult>();
  const missing = new Map<string, Read>();
  const ask = (read: Read): LoadResult => {
    const key = keyOf(read);
    const answer = answers.get(key);
    if (answer !== undefined) return answer;
    missing.set(key, read);
    return { ok: false, error: "not loaded yet" };
  };
  const fetch = (read: Read, signal: AbortSignal): Promise<LoadResult> => fetchRead(client, read, signal);
  const loader: ContextLoader = {
    ...scan.loader,
    kubeResource(call) {
      if (call.verb === "post")
        return (
          scan.loader.kubeResource?.(call) ?? { ok: false, error: "resource.Post is not available here" }
        );
      const selector = Object.entries(call.labels ?? {})
        .map(([k, v]) => `${k}=${v}`)
        .join(",");
      return ask({
        type: "resource",
        apiVersion: call.apiVersion,
        resource: call.resource,
        namespace: call.namespace,
        ...(call.verb === "get" ? { name: call.name ?? "" } : {}),
        selector,
      });
    },
    getResource: (apiVersion, kind, namespace, name) =>
      ask({ type: "get", apiVersion, kind, namespace, name }),
    listResources(kinds, namespace, selector) {
      const items: JsonValue[] = [];
      let pendingRead = false;
      for (const spelling of kinds) {
        const k = splitKind(spelling);
        if (k === undefined)
          return { ok: false, error: `unknown kind ${spelling}: give it as apiVersion/Kind` };
        const r = ask({ type: "list", ...k, namespace, selector: selectorString(selector) });
        if (!r.ok) {
          if (missing.size > 0) pendingRead = true;
          else return r;
        } else if (Array.isArray(r.value)) items.push(...r.value);
      }
      return pendingRead ? { ok: false, error: "not loaded yet" } : { ok: true, value: items };
    },
  };
  return {
    loader,
    namespaceOf: (uid) => namespaceIn(answers.values(), uid),
    async evaluate(evaluate, signal) {
      for (let round = 0; ; round++) {
        missing.clear();
        const value = await scan.evaluate(evaluate, signal);
        if (missing.size === 0 || round + 1 >= maxRounds) return value;
        const reads = [...missing];
        const results = await Promise.all(reads.map(([, r]) => fetch(r, signal)));
        reads.forEach(([key], i) => {
          answers.set(key, results[i] as LoadResult);
        });
      }
    },
  };
}
