/**
 * Authorization: kube-apiserver's chain of the privileged-group authorizer (`system:masters` may do
 * everything) and the RBAC authorizer, which walks the ClusterRoleBindings and then the RoleBindings
 * of the request's namespace, and allows on the first rule of a bound role that covers the request.
 * Roles and bindings are read from the store on every decision, so changes count at once.
 */
import type { JsonObject } from "@kyverno-ts/api";
import type { RequestUser } from "../admission/types.js";
import { asObject, metaString } from "../objects/meta.js";
import type { ObjectStore } from "../store/store.js";
import { type PolicyRule, type RequestAttributes, ruleAllows, rulesOf } from "./rules.js";

/** The outcome of one authorization. */
export interface Decision {
  allowed: boolean;
  /** Why (`RBAC: allowed by …`), or the errors met while denying (`RBAC: clusterrole… not found`). */
  reason: string;
}

/** The rules a user has in a namespace (SelfSubjectRulesReview). */
export interface UserRules {
  resourceRules: PolicyRule[];
  nonResourceRules: PolicyRule[];
  /** Errors met (missing roles); the lists may then be incomplete. */
  errors: string[];
}

/** Decides whether a user may make a request. */
export interface Authorizer {
  authorize(user: RequestUser, attributes: RequestAttributes): Decision;
  /** Every rule that applies to the user in `namespace` (cluster-wide rules included). */
  rulesFor(user: RequestUser, namespace: string): UserRules;
}

/** The group kube-apiserver lets do everything, whatever RBAC says. */
export const PRIVILEGED_GROUP = "system:masters";

const RBAC = "rbac.authorization.k8s.io";
const STORAGE = {
  roles: `${RBAC}/roles`,
  roleBindings: `${RBAC}/rolebindings`,
  clusterRoles: `${RBAC}/clusterroles`,
  clusterRoleBindings: `${RBAC}/clusterrolebindings`,
} as const;

const EVERYTHING: PolicyRule = { verbs: ["*"], apiGroups: ["*"], resources: ["*"] };
const EVERY_URL: PolicyRule = { verbs: ["*"], nonResourceURLs: ["*"] };

/** The `AlwaysAllow` mode: every authenticated request is allowed. */
export function createAlwaysAllowAuthorizer(): Authorizer {
  return {
    authorize: () => ({ allowed: true, reason: "" }),
    rulesFor: () => ({ resourceRules: [EVERYTHING], nonResourceRules: [EVERY_URL], errors: [] }),
  };
}

interface Subject {
  kind: string;
  name: string;
  namespace: string;
}

function subjectsOf(binding: JsonObject): Subject[] {
  const list = Array.isArray(binding.subjects) ? binding.subjects : [];
  return list.flatMap((s) => {
    const o = asObject(s);
    if (o === undefined) return [];
    const str = (k: string): string => (typeof o[k] === "string" ? (o[k] as string) : "");
    return [{ kind: str("kind"), name: str("name"), namespace: str("namespace") }];
  });
}

/** The subject of a binding that names the user, if any (RBAC's `appliesTo`). */
function subjectFor(user: RequestUser, subjects: Subject[], bindingNamespace: string): Subject | undefined {
  return subjects.find((s) => {
    switch (s.kind) {
      case "User":
        return s.name === user.username;
      case "Group":
        return user.groups.includes(s.name);
      case "ServiceAccount": {
        const ns = s.namespace === "" ? bindingNamespace : s.namespace;
        return ns !== "" && user.username === `system:serviceaccount:${ns}:${s.name}`;
      }
      default:
        return false;
    }
  });
}

function describeSubject(s: Subject, bindingNamespace: string): string {
  if (s.kind !== "ServiceAccount") return `${s.kind} ${JSON.stringify(s.name)}`;
  return `${s.kind} ${JSON.stringify(`${s.name}/${s.namespace === "" ? bindingNamespace : s.namespace}`)}`;
}

/** A binding that applies to the user, with the rules of the role it refers to. */
interface Grant {
  binding: ParsedBinding;
  subject: Subject;
  rules: PolicyRule[];
}

/** How RBAC names the grant that allowed a request (`RoleBinding "b/ns" of ClusterRole "r" to …`). */
function describeGrant({ binding, subject }: Grant): string {
  const kind = binding.namespace === "" ? "ClusterRoleBinding" : "RoleBinding";
  const name = binding.namespace === "" ? binding.name : `${binding.name}/${binding.namespace}`;
  return `${kind} ${JSON.stringify(name)} of ${binding.roleKind} ${JSON.stringify(binding.roleName)} to ${describeSubject(subject, binding.namespace)}`;
}

interface ParsedBinding {
  name: string;
  /** `""` for ClusterRoleBindings. */
  namespace: string;
  subjects: Subject[];
  roleKind: string;
  roleName: string;
}

function parseBinding(binding: JsonObject, namespace: string): ParsedBinding {
  const ref = asObject(binding.roleRef) ?? {};
  return {
    name: metaString(binding, "name"),
    namespace,
    subjects: subjectsOf(binding),
    roleKind: typeof ref.kind === "string" ? ref.kind : "",
    roleName: typeof ref.name === "string" ? ref.name : "",
  };
}

/**
 * The bindings and role rules of `store`, parsed once and cached until the next write to any RBAC
 * object.
 */
function createRbacCache(store: ObjectStore) {
  let clusterBindings: ParsedBinding[] | undefined;
  const bindingsByNamespace = new Map<string, ParsedBinding[]>();
  const rulesByRole = new Map<string, PolicyRule[] | undefined>();
  store.subscribe((event) => {
    if (!event.storageKey.startsWith(`${RBAC}/`)) return;
    clusterBindings = undefined;
    bindingsByNamespace.clear();
    rulesByRole.clear();
  });
  const storedRules = (
    kind: "ClusterRole" | "Role",
    namespace: string,
    name: string,
  ): PolicyRule[] | undefined => {
    const key = `${kind}|${namespace}/${name}`;
    if (!rulesByRole.has(key)) {
      const role =
        kind === "ClusterRole"
          ? store.get(STORAGE.clusterRoles, "", name)
          : store.get(STORAGE.roles, namespace, name);
      rulesByRole.set(key, role === undefined ? undefined : rulesOf(role));
    }
    return rulesByRole.get(key);
  };
  return {
    clusterBindings(): ParsedBinding[] {
      clusterBindings ??= store.list(STORAGE.clusterRoleBindings).map((b) => parseBinding(b, ""));
      return clusterBindings;
    },
    bindingsIn(namespace: string): ParsedBinding[] {
      let list = bindingsByNamespace.get(namespace);
      if (list === undefined) {
        list = store.list(STORAGE.roleBindings, namespace).map((b) => parseBinding(b, namespace));
        bindingsByNamespace.set(namespace, list);
      }
      return list;
    },
    /** The rules of the role a binding references, or why there are none. */
    roleRules(binding: ParsedBinding): PolicyRule[] | string {
      const { roleKind: kind, roleName: name, namespace } = binding;
      if (kind === "ClusterRole")
        return storedRules(kind, "", name) ?? `clusterrole.${RBAC} ${JSON.stringify(name)} not found`;
      if (kind === "Role" && namespace !== "")
        return storedRules(kind, namespace, name) ?? `role.${RBAC} ${JSON.stringify(name)} not found`;
      return `unsupported role reference kind: ${JSON.stringify(kind)}`;
    },
  };
}

/** The RBAC authorizer over the roles and bindings in `store`, behind the privileged group. */
export function createRbacAuthorizer(store: ObjectStore): Authorizer {
  const cache = createRbacCache(store);

  /** Visits the grants in kube-apiserver's order; stops when `visit` returns true. */
  const visitGrants = (
    user: RequestUser,
    namespace: string,
    visit: (grant: Grant) => boolean,
    errors: string[],
  ): void => {
    const lists =
      namespace === "" ? [cache.clusterBindings()] : [cache.clusterBindings(), cache.bindingsIn(namespace)];
    for (const list of lists)
      for (const binding of list) {
        const subject = subjectFor(user, binding.subjects, binding.namespace);
        if (subject === undefined) continue;
        const rules = cache.roleRules(binding);
        if (typeof rules === "string") {
          errors.push(rules);
          continue;
        }
        if (visit({ binding, subject, rules })) return;
      }
  };

  return {
    authorize(user, attributes) {
      if (user.groups.includes(PRIVILEGED_GROUP)) return { allowed: true, reason: "" };
      const namespace = attributes.kind === "resource" ? attributes.namespace : "";
      const errors: string[] = [];
      let reason = "";
      visitGrants(
        user,
        namespace,
        (grant) => {
          if (!grant.rules.some((rule) => ruleAllows(attributes, rule))) return false;
          reason = `RBAC: allowed by ${describeGrant(grant)}`;
          return true;
        },
        errors,
      );
      if (reason !== "") return { allowed: true, reason };
      return { allowed: false, reason: errors.length === 0 ? "" : `RBAC: ${aggregate(errors)}` };
    },
    rulesFor(user, namespace) {
      const resourceRules: PolicyRule[] = [];
      const nonResourceRules: PolicyRule[] = [];
      if (user.groups.includes(PRIVILEGED_GROUP)) {
        resourceRules.push(EVERYTHING);
        nonResourceRules.push(EVERY_URL);
      }
      const errors: string[] = [];
      visitGrants(
        user,
        namespace,
        (grant) => {
          for (const rule of grant.rules) {
            if ((rule.resources ?? []).length > 0) resourceRules.push(rule);
            if ((rule.nonResourceURLs ?? []).length > 0) nonResourceRules.push(rule);
          }
          return false;
        },
        errors,
      );
      return { resourceRules, nonResourceRules, errors };
    },
  };
}

/** apimachinery's aggregate error text: one error as is, several as `[a, b]`. */
function aggregate(errors: string[]): string {
  return errors.length === 1 ? (errors[0] ?? "") : `[${errors.join(", ")}]`;
}
