/**
 * The existing triggers of a CEL policy, for generateExisting (GeneratingPolicies) and
 * mutateExisting (MutatingPolicies): the objects its resource rules name, listed on demand.
 */
import type { KubeObject } from "@kyverno-ts/api";
import type { KubeClient } from "@kyverno-ts/kube";
import type { Logger } from "../../logger.js";
import type { CachedCelPolicy } from "../../policycache/cel-policy-store.js";
import { kindOfResource } from "./resource-data.js";

/**
 * The existing objects of a policy's resource rules (in its namespace when namespaced): the
 * candidates of generateExisting and mutateExisting, which the caller evaluates. Rules with wildcards
 * or subresources, resources the server does not serve and failed lists are logged and left out.
 */
export async function existingTriggers(
  client: KubeClient,
  policy: CachedCelPolicy,
  logger: Logger,
): Promise<Array<{ object: KubeObject; apiVersion: string; kind: string }>> {
  const out: Array<{ object: KubeObject; apiVersion: string; kind: string }> = [];
  for (const rule of policy.compiled.resourceRules)
    for (const group of rule.apiGroups ?? [""])
      for (const version of rule.apiVersions ?? [])
        for (const resource of rule.resources ?? []) {
          const apiVersion = group ? `${group}/${version}` : version;
          const where = { policy: policy.key, apiVersion, resource };
          if ([group, version, resource].some((s) => s.includes("*") || s.includes("/"))) {
            logger.warn(where, "existing resources of this resource rule cannot be listed");
            continue;
          }
          const kind = await kindOfResource(client, apiVersion, resource, new AbortController().signal);
          if (kind === undefined) {
            logger.warn(where, "existing triggers not listed: the server does not serve this resource");
            continue;
          }
          const namespace = policy.compiled.namespace;
          const listed = await client.list<KubeObject>({
            apiVersion,
            kind,
            ...(namespace ? { namespace } : {}),
          });
          if (!listed.ok) {
            logger.error({ ...where, message: listed.message }, "cannot list existing triggers");
            continue;
          }
          for (const object of listed.value.items) out.push({ object, apiVersion, kind });
        }
  return out;
}
