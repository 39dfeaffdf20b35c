/**
 * RBAC escalation prevention, as kube-apiserver's rbac registry does it: a user may create or update a
 * Role / ClusterRole only with the `escalate` verb on it or while holding every permission it grants,
 * and a RoleBinding / ClusterRoleBinding only with the `bind` verb on the role it refers to or while
 * holding every permission of that role (in the binding's namespace). `system:masters` is exempt; a
 * write that leaves the rules (roles) or role reference and subjects (bindings) unchanged is not checked.
 */
import type { JsonObject } from "@kyverno-ts/api";
import type { RequestUser } from "../admission/types.js";
import { forbidden } from "../http/status.js";
import { asObject, metaString } from "../objects/meta.js";
import type { ObjectStore } from "../store/store.js";
import { type Authorizer, PRIVILEGED_GROUP } from "./authorizer.js";
import { type PolicyRule, rulesOf } from "./rules.js";

const RBAC = "rbac.authorization.k8s.io";

/** Checks one RBAC write; throws the 403 kube-apiserver gives when it would escalate privileges. */
export type EscalationGuard = (
  user: RequestUser,
  resource: { group: string; plural: string },
  object: JsonObject,
  old: JsonObject | undefined,
) => void;

const has = (list: readonly string[] | undefined, value: string): boolean => list?.includes(value) === true;
const hasAll = (list: readonly string[] | undefined, values: readonly string[]): boolean =>
  values.every((v) => has(list, v));

function resourcesCover(owned: readonly string[] | undefined, requested: readonly string[]): boolean {
  if (has(owned, "*")) return true;
  return requested.every((r) => {
    if (has(owned, r)) return true;
    const slash = r.indexOf("/");
    return slash > 0 && r.indexOf("/", slash + 1) < 0 && has(owned, `*${r.slice(slash)}`);
  });
}

function urlsCover(owned: readonly string[] | undefined, requested: readonly string[]): boolean {
  if (has(owned, "*")) return true;
  return requested.every(
    (url) =>
      has(owned, url) || (owned ?? []).some((o) => o.endsWith("*") && url.startsWith(o.replace(/\*+$/, ""))),
  );
}

/** Whether `owner` covers the single-permission rule `wanted` (upstream's `ruleCovers`). */
function ruleCovers(owner: PolicyRule, wanted: PolicyRule): boolean {
  const names = wanted.resourceNames ?? [];
  const ownerNames = owner.resourceNames ?? [];
  return (
    (has(owner.verbs, "*") || hasAll(owner.verbs, wanted.verbs)) &&
    (has(owner.apiGroups, "*") || hasAll(owner.apiGroups, wanted.apiGroups ?? [])) &&
    resourcesCover(owner.resources, wanted.resources ?? []) &&
    urlsCover(owner.nonResourceURLs, wanted.nonResourceURLs ?? []) &&
    (names.length === 0 ? ownerNames.length === 0 : ownerNames.length === 0 || hasAll(ownerNames, names))
  );
}

/** A rule split into one rule per verb, group, resource (and name) or URL (upstream's `BreakdownRule`). */
function breakdown(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  const names = rule.resourceNames ?? [];
  for (const group of rule.apiGroups ?? [])
    for (const resource of rule.resources ?? [])
      for (const verb of rule.verbs) {
        if (names.length === 0) out.push({ verbs: [verb], apiGroups: [group], resources: [resource] });
        for (const name of names)
          out.push({ verbs: [verb], apiGroups: [group], resources: [resource], resourceNames: [name] });
      }
  for (const url of rule.nonResourceURLs ?? [])
    for (const verb of rule.verbs) out.push({ verbs: [verb], nonResourceURLs: [url] });
  return out;
}

/** The parts of `wanted` no rule of `owned` covers, verbs merged per group/resource/name, sorted as upstream prints them. */
export function uncovered(owned: readonly PolicyRule[], wanted: readonly PolicyRule[]): PolicyRule[] {
  const missing = new Map<string, PolicyRule>();
  for (const atom of wanted.flatMap(breakdown)) {
    if (owned.some((o) => ruleCovers(o, atom))) continue;
    const { verbs, ...rest } = atom;
    const key = JSON.stringify(rest);
    const merged = missing.get(key);
    if (merged === undefined) missing.set(key, { ...atom, verbs: [...verbs] });
    else merged.verbs.push(...verbs);
  }
  return [...missing.values()].sort((a, b) => (compactRule(a) < compactRule(b) ? -1 : 1));
}

const goList = (values: readonly string[]): string => `[${values.map((v) => JSON.stringify(v)).join(" ")}]`;

/** A rule as upstream's `CompactString` prints it: `{APIGroups:["apps"], Resources:["deployments"], Verbs:["create"]}`. */
export function compactRule(rule: PolicyRule): string {
  const parts: string[] = [];
  if ((rule.apiGroups ?? []).length > 0) parts.push(`APIGroups:${goList(rule.apiGroups ?? [])}`);
  if ((rule.resources ?? []).length > 0) parts.push(`Resources:${goList(rule.resources ?? [])}`);
  if ((rule.nonResourceURLs ?? []).length > 0)
    parts.push(`NonResourceURLs:${goList(rule.nonResourceURLs ?? [])}`);
  if ((rule.resourceNames ?? []).length > 0) parts.push(`ResourceNames:${goList(rule.resourceNames ?? [])}`);
  if (rule.verbs.length > 0) parts.push(`Verbs:${goList(rule.verbs)}`);
  return `{${parts.join(", ")}}`;
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** The guard for the RBAC kinds, deciding with `authorizer` over the roles in `store`. */
export function createEscalationGuard(authorizer: Authorizer, store: ObjectStore): EscalationGuard {
  const allowed = (user: RequestUser, verb: string, resource: string, namespace: string, name: string) =>
    authorizer.authorize(user, {
      kind: "resource",
      verb,
      group: RBAC,
      version: "",
      resource,
      subresource: "",
      namespace,
      name,
    }).allowed;
  const confirm = (
    user: RequestUser,
    gr: { group: string; resource: string },
    name: string,
    namespace: string,
    wanted: PolicyRule[],
  ) => {
    const owned = authorizer.rulesFor(user, namespace);
    const missing = uncovered([...owned.resourceRules, ...owned.nonResourceRules], wanted);
    if (missing.length === 0) return;
    throw forbidden(
      gr,
      name,
      `user ${JSON.stringify(user.username)} (groups=${goList(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${missing.map(compactRule).join("\n")}`,
    );
  };
  return (user, resource, object, old) => {
    if (resource.group !== RBAC || user.groups.includes(PRIVILEGED_GROUP)) return;
    const gr = { group: RBAC, resource: resource.plural };
    const name = metaString(object, "name");
    const namespace = metaString(object, "namespace");
    if (resource.plural === "roles" || resource.plural === "clusterroles") {
      if (
        old !== undefined &&
        same(old.rules, object.rules) &&
        same(old.aggregationRule, object.aggregationRule)
      )
        return;
      if (allowed(user, "escalate", resource.plural, namespace, name)) return;
      if (asObject(object.aggregationRule) !== undefined)
        throw forbidden(gr, name, "must have cluster-admin privileges to use the aggregationRule");
      confirm(user, gr, name, namespace, rulesOf(object));
      return;
    }
    if (resource.plural !== "rolebindings" && resource.plural !== "clusterrolebindings") return;
    if (old !== undefined && same(old.roleRef, object.roleRef) && same(old.subjects, object.subjects)) return;
    const ref = asObject(object.roleRef) ?? {};
    const refKind = typeof ref.kind === "string" ? ref.kind : "";
    const refName = typeof ref.name === "string" ? ref.name : "";
    const refResource = refKind === "Role" ? "roles" : "clusterroles";
    if (allowed(user, "bind", refResource, namespace, refName)) return;
    const role =
      refKind === "Role"
        ? store.get(`${RBAC}/roles`, namespace, refName)
        : store.get(`${RBAC}/clusterroles`, "", refName);
    if (role === undefined)
      throw forbidden(
        gr,
        name,
        `${refKind === "Role" ? "role" : "clusterrole"}.${RBAC} ${JSON.stringify(refName)} not found`,
      );
    confirm(user, gr, name, namespace, rulesOf(role));
  };
}
