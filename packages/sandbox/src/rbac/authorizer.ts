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
  source: string;
  rules: PolicyRule[];
}

/** The RBAC authorizer over the roles and bindings in `store`, behind the privileged group. */
export function createRbacAuthorizer(store: ObjectStore): Authorizer {
  const roleRules = (
    ref: JsonObject,
    bindingNamespace: string,
  ): { rules: PolicyRule[]; kind: string; name: string } | string => {
    const kind = typeof ref.kind === "string" ? ref.kind : "";
    const name = typeof ref.name === "string" ? ref.name : "";
    if (kind === "ClusterRole") {
      const role = store.get(STORAGE.clusterRoles, "", name);
      if (role === undefined) return `clusterrole.${RBAC} ${JSON.stringify(name)} not found`;
      return { rules: rulesOf(role), kind, name };
    }
    if (kind === "Role" && bindingNamespace !== "") {
      const role = store.get(STORAGE.roles, bindingNamespace, name);
      if (role === undefined) return `role.${RBAC} ${JSON.stringify(name)} not found`;
      return { rules: rulesOf(role), kind, name };
    }
    return `unsupported role reference kind: ${JSON.stringify(kind)}`;
  };

  /** Visits the grants in kube-apiserver's order; stops when `visit` returns true. */
  const visitGrants = (
    user: RequestUser,
    namespace: string,
    visit: (grant: Grant) => boolean,
    errors: string[],
  ): void => {
    const bindings: Array<{ binding: JsonObject; namespace: string }> = [
      ...store.list(STORAGE.clusterRoleBindings).map((binding) => ({ binding, namespace: "" })),
      ...(namespace === ""
        ? []
        : store.list(STORAGE.roleBindings, namespace).map((binding) => ({ binding, namespace }))),
    ];
    for (const { binding, namespace: ns } of bindings) {
      const subject = subjectFor(user, subjectsOf(binding), ns);
      if (subject === undefined) continue;
      const role = roleRules(asObject(binding.roleRef) ?? {}, ns);
      if (typeof role === "string") {
        errors.push(role);
        continue;
      }
      const kind = ns === "" ? "ClusterRoleBinding" : "RoleBinding";
      const bindingName = ns === "" ? metaString(binding, "name") : `${metaString(binding, "name")}/${ns}`;
      const source = `${kind} ${JSON.stringify(bindingName)} of ${role.kind} ${JSON.stringify(role.name)} to ${describeSubject(subject, ns)}`;
      if (visit({ source, rules: role.rules })) return;
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
          reason = `RBAC: allowed by ${grant.source}`;
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
