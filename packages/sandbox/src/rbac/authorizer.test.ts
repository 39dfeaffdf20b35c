import type { JsonObject } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { forbiddenRequest } from "../http/status.js";
import { createStore } from "../store/store.js";
import { createRbacAuthorizer } from "./authorizer.js";
import type { ResourceAttributes } from "./rules.js";

const RBAC = "rbac.authorization.k8s.io";
const meta = (name: string, namespace?: string): JsonObject =>
  namespace === undefined ? { name } : { name, namespace };

function setup(): ReturnType<typeof createStore> {
  const store = createStore();
  store.create(`${RBAC}/clusterroles`, {
    kind: "ClusterRole",
    metadata: meta("pod-reader"),
    rules: [{ verbs: ["get", "list"], apiGroups: [""], resources: ["pods"] }],
  });
  store.create(`${RBAC}/roles`, {
    kind: "Role",
    metadata: meta("cm-writer", "prod"),
    rules: [{ verbs: ["create"], apiGroups: [""], resources: ["configmaps"] }],
  });
  store.create(`${RBAC}/rolebindings`, {
    kind: "RoleBinding",
    metadata: meta("bot-reads-pods", "prod"),
    roleRef: { apiGroup: RBAC, kind: "ClusterRole", name: "pod-reader" },
    subjects: [{ kind: "ServiceAccount", name: "bot" }],
  });
  store.create(`${RBAC}/rolebindings`, {
    kind: "RoleBinding",
    metadata: meta("devs-write-cms", "prod"),
    roleRef: { apiGroup: RBAC, kind: "Role", name: "cm-writer" },
    subjects: [{ kind: "Group", name: "devs" }],
  });
  store.create(`${RBAC}/clusterrolebindings`, {
    kind: "ClusterRoleBinding",
    metadata: meta("jane-dangling"),
    roleRef: { apiGroup: RBAC, kind: "ClusterRole", name: "gone" },
    subjects: [{ kind: "User", name: "jane" }],
  });
  return store;
}

const bot = {
  username: "system:serviceaccount:prod:bot",
  groups: ["system:serviceaccounts", "system:authenticated"],
};
const jane = { username: "jane", groups: ["devs", "system:authenticated"] };
const pods = (verb: string, namespace: string): ResourceAttributes => ({
  kind: "resource",
  verb,
  group: "",
  version: "v1",
  resource: "pods",
  subresource: "",
  namespace,
  name: "",
});

describe("RBAC authorizer", () => {
  const authorizer = createRbacAuthorizer(setup());

  it("sees bindings and role rules change at once", () => {
    const store = setup();
    const fresh = createRbacAuthorizer(store);
    expect(fresh.authorize(bot, pods("delete", "prod")).allowed).toBe(false);
    const role = store.get(`${RBAC}/clusterroles`, "", "pod-reader") as JsonObject;
    store.update(`${RBAC}/clusterroles`, {
      ...role,
      rules: [{ verbs: ["*"], apiGroups: [""], resources: ["pods"] }],
    });
    expect(fresh.authorize(bot, pods("delete", "prod")).allowed).toBe(true);
    store.remove(`${RBAC}/rolebindings`, "prod", "bot-reads-pods");
    expect(fresh.authorize(bot, pods("get", "prod")).allowed).toBe(false);
  });

  it("allows through a RoleBinding to a ClusterRole, only in the binding's namespace", () => {
    expect(authorizer.authorize(bot, pods("list", "prod"))).toEqual({
      allowed: true,
      reason:
        'RBAC: allowed by RoleBinding "bot-reads-pods/prod" of ClusterRole "pod-reader" to ServiceAccount "bot/prod"',
    });
    expect(authorizer.authorize(bot, pods("list", "staging")).allowed).toBe(false);
    expect(authorizer.authorize(bot, pods("list", "")).allowed).toBe(false);
    expect(authorizer.authorize(bot, pods("delete", "prod")).allowed).toBe(false);
  });

  it("matches Group subjects and Roles of the binding's namespace", () => {
    const cm: ResourceAttributes = { ...pods("create", "prod"), resource: "configmaps" };
    expect(authorizer.authorize(jane, cm).allowed).toBe(true);
    expect(authorizer.authorize(bot, cm).allowed).toBe(false);
  });

  it("names the missing role of a binding that applies when it denies", () => {
    expect(authorizer.authorize(jane, pods("get", "staging"))).toEqual({
      allowed: false,
      reason: 'RBAC: clusterrole.rbac.authorization.k8s.io "gone" not found',
    });
  });

  it("lets system:masters do everything", () => {
    expect(
      authorizer.authorize({ username: "x", groups: ["system:masters"] }, pods("delete", "")).allowed,
    ).toBe(true);
  });

  it("lists the rules of a user in a namespace", () => {
    const rules = authorizer.rulesFor(bot, "prod");
    expect(rules.resourceRules).toEqual([{ verbs: ["get", "list"], apiGroups: [""], resources: ["pods"] }]);
    expect(authorizer.rulesFor(bot, "staging").resourceRules).toEqual([]);
  });
});

describe("403 Forbidden texts (kube-apiserver's ForbiddenStatusError)", () => {
  it("words resource, subresource, cluster-scope and path denials as upstream", () => {
    const user = "system:serviceaccount:kyverno:kyverno-admission-controller";
    expect(forbiddenRequest(user, pods("list", "")).toStatus()).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: `pods is forbidden: User "${user}" cannot list resource "pods" in API group "" at the cluster scope`,
      reason: "Forbidden",
      details: { kind: "pods" },
      code: 403,
    });
    const scale = forbiddenRequest("x", {
      kind: "resource",
      verb: "get",
      group: "apps",
      resource: "deployments",
      subresource: "scale",
      namespace: "prod",
      name: "web",
    });
    expect(scale.message).toBe(
      'deployments.apps "web" is forbidden: User "x" cannot get resource "deployments/scale" in API group "apps" in the namespace "prod"',
    );
    expect(scale.details).toEqual({ name: "web", group: "apps", kind: "deployments" });
    const metrics = forbiddenRequest(
      "x",
      { kind: "nonResource", verb: "get", path: "/metrics" },
      "RBAC: oops",
    );
    expect(metrics.message).toBe('forbidden: User "x" cannot get path "/metrics": RBAC: oops');
  });
});
