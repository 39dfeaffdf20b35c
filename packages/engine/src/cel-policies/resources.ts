/**
 * Resource names of kinds, for `matchConstraints.resourceRules` (which name `pods`, `deployments`)
 * and CEL's `resource` library: the well-known irregular plurals, else Kubernetes' guess
 * (`meta.UnsafeGuessKindToResource`: lower case, `-s` → `-ses`, `-y` → `-ies`, else `-s`).
 */

const IRREGULAR: Readonly<Record<string, string>> = {
  Endpoints: "endpoints",
  PodSecurityPolicy: "podsecuritypolicies",
  NetworkPolicy: "networkpolicies",
  Ingress: "ingresses",
  IngressClass: "ingressclasses",
  StorageClass: "storageclasses",
  PriorityClass: "priorityclasses",
  RuntimeClass: "runtimeclasses",
};

/** The plural resource name of a kind. */
export function pluralOf(kind: string): string {
  const known = IRREGULAR[kind];
  if (known !== undefined) return known;
  const lower = kind.toLowerCase();
  if (lower === "") return "";
  if (lower.endsWith("s") || lower.endsWith("x") || lower.endsWith("ch") || lower.endsWith("sh"))
    return `${lower}es`;
  if (lower.endsWith("y") && !/[aeiou]y$/.test(lower)) return `${lower.slice(0, -1)}ies`;
  return `${lower}s`;
}

/** Pod controllers autogen knows, by resource name, with their kind. */
export const POD_CONTROLLERS: Readonly<Record<string, string>> = {
  deployments: "Deployment",
  daemonsets: "DaemonSet",
  statefulsets: "StatefulSet",
  replicasets: "ReplicaSet",
  replicationcontrollers: "ReplicationController",
  jobs: "Job",
  cronjobs: "CronJob",
};

/** API group and version of each pod controller. */
export const CONTROLLER_GROUPS: Readonly<Record<string, { group: string; version: string }>> = {
  deployments: { group: "apps", version: "v1" },
  daemonsets: { group: "apps", version: "v1" },
  statefulsets: { group: "apps", version: "v1" },
  replicasets: { group: "apps", version: "v1" },
  replicationcontrollers: { group: "", version: "v1" },
  jobs: { group: "batch", version: "v1" },
  cronjobs: { group: "batch", version: "v1" },
};
