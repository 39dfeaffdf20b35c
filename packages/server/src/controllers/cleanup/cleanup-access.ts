/**
 * What the cleanup controller asks the API server about its own permissions (SelfSubjectAccessReviews)
 * and what its webhooks may tell users about the kinds the TTL controller watches.
 */
import type { KubeObject } from "@kyverno-ts/api";
import type { KubeClient } from "@kyverno-ts/kube";
import type { KindResolver } from "../../cluster-state/kinds.js";

/** Whether this controller may do `verb` on a resource (a SelfSubjectAccessReview). */
export async function selfAccess(
  client: KubeClient,
  attributes: { group: string; resource: string; verb: string; namespace?: string },
  signal?: AbortSignal,
): Promise<boolean | { error: string }> {
  const review = await client.create<KubeObject>(
    {
      apiVersion: "authorization.k8s.io/v1",
      kind: "SelfSubjectAccessReview",
      spec: { resourceAttributes: { ...attributes, namespace: attributes.namespace ?? "" } },
    },
    { ...(signal ? { signal } : {}) },
  );
  if (!review.ok) return { error: review.message };
  return (review.value.status as { allowed?: boolean } | undefined)?.allowed === true;
}

/**
 * Whether this controller may `list` or `delete` a policy's kind (`Kind` or `group/version/Kind`) in
 * a namespace; the policy validation webhook asks it.
 */
export function createAccessCheck(
  client: KubeClient,
  kinds: KindResolver,
): (kind: string, namespace: string, verb: "list" | "delete") => Promise<boolean | { error: string }> {
  return async (kind, namespace, verb) => {
    const parts = kind.split("/");
    const name = parts[parts.length - 1] ?? kind;
    const found =
      parts.length > 1
        ? { ok: true as const, value: { apiVersion: parts.slice(0, -1).join("/"), kind: name } }
        : await kinds.watchable(name);
    if (!found.ok) return { error: `kind ${kind}: ${found.message}` };
    const info = await client.resource(found.value.apiVersion, name);
    if (!info.ok) return { error: `kind ${kind}: ${info.message}` };
    const slash = found.value.apiVersion.lastIndexOf("/");
    const group = slash < 0 ? "" : found.value.apiVersion.slice(0, slash);
    return selfAccess(client, { group, resource: info.value.name, verb, namespace });
  };
}

/**
 * Whether the TTL controller deletes objects of `group`/`kind` (undefined while it watches nothing yet):
 * the webhook warns about a TTL label on other kinds.
 */
export function ttlDeletable(
  watched: () => ReadonlyArray<{ apiVersion: string; kind: string }>,
): (group: string, kind: string) => boolean | undefined {
  return (group, kind) => {
    const kinds = watched();
    if (kinds.length === 0) return undefined;
    return kinds.some(
      (k) => k.kind === kind && (k.apiVersion.includes("/") ? k.apiVersion.split("/")[0] : "") === group,
    );
  };
}
