/**
 * Upstream's auth check of the policy validation webhook: the background controller's ServiceAccount
 * (`--backgroundServiceAccountName`, upstream's `system:serviceaccount:kyverno:kyverno-background-controller`)
 * must be allowed every verb a generate or mutate-existing rule needs on the kinds it writes. Each
 * check is a SubjectAccessReview; the kind is resolved to its resource through discovery.
 */
import type { KubeObject, PermissionCheck, PermissionDecision } from "@kyverno-ts/api";
import type { KubeClient } from "@kyverno-ts/kube";
import type { Resolution } from "../../cluster-state/kinds.js";

/** Answers the permission checks of one policy (asynchronously: a cluster is asked). */
export interface BackgroundPermissions {
  /** The user the checks are for, as upstream names it in its messages. */
  readonly user: string;
  decide(check: PermissionCheck, signal?: AbortSignal): Promise<PermissionDecision>;
}

/** Options of `createSubjectAccessPermissions`. */
export interface SubjectAccessPermissionsOptions {
  client: KubeClient;
  /** The background controller's user (`system:serviceaccount:<namespace>:<name>`). */
  user: string;
  /** A kind selector (`Secret`, `apps/v1/Deployment`, `apps/*\/Deployment`) to its resources (discovery). */
  resources: (selector: string, signal?: AbortSignal) => Promise<Resolution>;
}

/** The kind selector of a check, as the kind resolver reads it. */
function selectorOf(check: PermissionCheck): string {
  if (check.version === "*" || check.version === "")
    return check.group === "" ? check.kind : `${check.group}/*/${check.kind}`;
  return check.group === ""
    ? `${check.version}/${check.kind}`
    : `${check.group}/${check.version}/${check.kind}`;
}

interface SubjectAccessReviewStatus {
  allowed?: boolean;
  reason?: string;
  evaluationError?: string;
}

/**
 * Checks through SubjectAccessReviews. A kind discovery does not know is not judged here (the policy's
 * status reports it); an API failure answers not allowed with its message, so the policy is rejected
 * rather than accepted unchecked.
 */
export function createSubjectAccessPermissions(
  options: SubjectAccessPermissionsOptions,
): BackgroundPermissions {
  const { client, user } = options;
  return {
    user,
    async decide(check, signal) {
      const resolved = await options.resources(selectorOf(check), signal);
      if (!resolved.ok)
        return resolved.reason === "Unknown"
          ? { allowed: true }
          : { allowed: false, reason: resolved.message };
      const [resource] = resolved.resources;
      if (resource === undefined) return { allowed: true };
      const plural = resource.resource.split("/")[0] ?? resource.resource;
      const review = await client.create<KubeObject>({
        apiVersion: "authorization.k8s.io/v1",
        kind: "SubjectAccessReview",
        metadata: {},
        spec: {
          user,
          resourceAttributes: {
            verb: check.verb,
            group: resource.group,
            resource: plural,
            subresource: check.subresource,
            namespace: check.namespace,
            name: check.name,
          },
        },
      });
      if (!review.ok) return { allowed: false, reason: review.message };
      const status = review.value.status as SubjectAccessReviewStatus | undefined;
      return {
        allowed: status?.allowed === true,
        ...(status?.reason ? { reason: status.reason } : {}),
      };
    },
  };
}
