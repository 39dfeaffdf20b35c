/**
 * `request.roles` and `request.clusterRoles` of an admission request, as upstream's `GetRoleRef`
 * builds them from RoleBindings and ClusterRoleBindings (kept by informers): every RoleBinding whose
 * subjects name the requester gives `namespace:role` (a Role) or the ClusterRole's name; every such
 * ClusterRoleBinding gives its ClusterRole. A subject names the requester by user name, by one of its
 * groups, or as a ServiceAccount (`system:serviceaccount:<namespace>:<name>`, the binding's namespace
 * when the subject has none). Match and exclude blocks with `roles` / `clusterRoles`, Kyverno's
 * ConfigMap `excludeRoles` / `excludeClusterRoles` and the variables read them.
 */
import type { KubeObject } from "@kyverno-ts/api";
import type { UserInfo } from "@kyverno-ts/engine";
import { createInformer, type Informer, type KubeClient } from "@kyverno-ts/kube";
import type { RequesterRoles } from "../controllers/admission/request.js";
import type { Logger } from "../logger.js";

const RBAC = "rbac.authorization.k8s.io/v1";
const SERVICE_ACCOUNT_PREFIX = "system:serviceaccount:";
/** Requesters whose roles are remembered between binding changes. */
const MEMO_SIZE = 1000;

/** Options of `createRequesterRoles`. */
export interface RequesterRolesOptions {
  client: KubeClient;
  logger: Logger;
  /** Informer retry delays (default: the kube package's backoff). */
  delay?: (attempt: number) => number;
}

/** The bindings' informers and the lookup; see `createRequesterRoles`. */
export interface RequesterRolesSource {
  /** Starts watching; does not wait for the lists (a missing permission must not hold admission up). */
  start(): void;
  stop(): Promise<void>;
  /** True once both kinds have listed. */
  synced(): boolean;
  /** The requester's roles and cluster roles (empty until the bindings are listed). */
  resolve(user: UserInfo): RequesterRoles;
}

interface Subject {
  kind?: unknown;
  name?: unknown;
  namespace?: unknown;
}

/** Whether one of a binding's subjects is the requester (upstream's `matchBindingSubjects`). */
export function namesRequester(subjects: unknown, user: UserInfo, bindingNamespace: string): boolean {
  if (!Array.isArray(subjects)) return false;
  return (subjects as Subject[]).some((s) => {
    const name = typeof s.name === "string" ? s.name : "";
    if (s.kind === "User") return user.username === name;
    if (s.kind === "Group") return (user.groups ?? []).includes(name);
    if (s.kind === "ServiceAccount") {
      const namespace =
        typeof s.namespace === "string" && s.namespace !== "" ? s.namespace : bindingNamespace;
      return user.username === `${SERVICE_ACCOUNT_PREFIX}${namespace}:${name}`;
    }
    return false;
  });
}

/** The requester's roles from a list of RoleBindings and ClusterRoleBindings. */
export function rolesOf(
  user: UserInfo,
  roleBindings: readonly KubeObject[],
  clusterRoleBindings: readonly KubeObject[],
): RequesterRoles {
  const roles = new Set<string>();
  const clusterRoles = new Set<string>();
  const refOf = (b: KubeObject) => (b.roleRef ?? {}) as { kind?: unknown; name?: unknown };
  for (const b of roleBindings) {
    const namespace = b.metadata?.namespace ?? "";
    if (!namesRequester(b.subjects, user, namespace)) continue;
    const ref = refOf(b);
    if (typeof ref.name !== "string") continue;
    if (ref.kind === "Role") roles.add(`${namespace}:${ref.name}`);
    else if (ref.kind === "ClusterRole") clusterRoles.add(ref.name);
  }
  for (const b of clusterRoleBindings) {
    if (!namesRequester(b.subjects, user, "")) continue;
    const ref = refOf(b);
    if (ref.kind === "ClusterRole" && typeof ref.name === "string") clusterRoles.add(ref.name);
  }
  return { roles: [...roles].sort(), clusterRoles: [...clusterRoles].sort() };
}

/** Creates the informers (nothing is read before `start`). */
export function createRequesterRoles(options: RequesterRolesOptions): RequesterRolesSource {
  const memo = new Map<string, RequesterRoles>();
  const informers: Array<Informer<KubeObject>> = ["RoleBinding", "ClusterRoleBinding"].map((kind) => {
    const informer = createInformer<KubeObject>({
      client: options.client,
      apiVersion: RBAC,
      kind,
      ...(options.delay === undefined ? {} : { delay: options.delay }),
    });
    for (const event of ["add", "update", "delete"] as const) informer.on(event, () => memo.clear());
    let reported = false;
    informer.on("error", (e) => {
      if (e.source === "handler") return;
      if (!reported) {
        reported = true;
        options.logger.warn(
          { kind, reason: e.failure.reason, message: e.failure.message },
          "cannot watch: request.roles and request.clusterRoles stay empty (grant list and watch on it)",
        );
      }
    });
    informer.on("synced", () => {
      reported = false;
      memo.clear();
    });
    return informer;
  });
  const [roleBindings, clusterRoleBindings] = informers as [Informer<KubeObject>, Informer<KubeObject>];
  return {
    start() {
      for (const informer of informers) void informer.start();
    },
    async stop() {
      await Promise.all(informers.map((i) => i.stop()));
    },
    synced: () => informers.every((i) => i.hasSynced()),
    resolve(user) {
      const key = JSON.stringify([user.username ?? "", [...(user.groups ?? [])].sort()]);
      const known = memo.get(key);
      if (known !== undefined) return known;
      const roles = rolesOf(user, roleBindings.list(), clusterRoleBindings.list());
      if (memo.size >= MEMO_SIZE) memo.clear();
      memo.set(key, roles);
      return roles;
    },
  };
}
