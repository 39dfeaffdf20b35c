import type { JsonObject } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { ApiError } from "../http/status.js";
import { createStore } from "../store/store.js";
import { createRbacAuthorizer } from "./authorizer.js";
import { compactRule, createEscalationGuard, uncovered } from "./escalation.js";

const RBAC = "rbac.authorization.k8s.io";
const jane = { username: "jane", groups: ["devs", "system:authenticated"] };

function setup() {
  const store = createStore();
  const clusterRole = (name: string, rules: JsonObject[]) =>
    store.create(`${RBAC}/clusterroles`, { kind: "ClusterRole", metadata: { name }, rules });
  clusterRole("pods-rw", [
    { verbs: ["get", "list", "create"], apiGroups: [""], resources: ["pods", "pods/log"] },
  ]);
  clusterRole("rbac-writer", [
    { verbs: ["create", "update"], apiGroups: [RBAC], resources: ["roles", "rolebindings"] },
  ]);
  clusterRole("deployments-admin", [{ verbs: ["*"], apiGroups: ["apps"], resources: ["deployments"] }]);
  clusterRole("secrets-reader", [{ verbs: ["get"], apiGroups: [""], resources: ["secrets"] }]);
  clusterRole("binder", [
    { verbs: ["bind"], apiGroups: [RBAC], resources: ["clusterroles"], resourceNames: ["secrets-reader"] },
  ]);
  for (const role of ["pods-rw", "rbac-writer", "binder"])
    store.create(`${RBAC}/rolebindings`, {
      kind: "RoleBinding",
      metadata: { name: `jane-${role}`, namespace: "prod" },
      roleRef: { apiGroup: RBAC, kind: "ClusterRole", name: role },
      subjects: [{ kind: "User", name: "jane" }],
    });
  const guard = createEscalationGuard(createRbacAuthorizer(store), store);
  return { store, guard };
}

const role = (rules: JsonObject[]): JsonObject => ({
  kind: "Role",
  metadata: { name: "r", namespace: "prod" },
  rules,
});
const binding = (roleName: string): JsonObject => ({
  kind: "RoleBinding",
  metadata: { name: "b", namespace: "prod" },
  roleRef: { apiGroup: RBAC, kind: "ClusterRole", name: roleName },
  subjects: [{ kind: "User", name: "bob" }],
});
const refusal = (f: () => void): ApiError => {
  try {
    f();
  } catch (e) {
    if (e instanceof ApiError) return e;
  }
  throw new Error("not refused");
};

describe("RBAC escalation prevention", () => {
  const roles = { group: RBAC, plural: "roles" };
  const bindings = { group: RBAC, plural: "rolebindings" };

  it("lets a user create a Role with permissions they hold, and refuses more, naming what is missing", () => {
    const { guard } = setup();
    expect(() =>
      guard(
        jane,
        roles,
        role([{ verbs: ["get", "create"], apiGroups: [""], resources: ["pods"] }]),
        undefined,
      ),
    ).not.toThrow();
    const refused = refusal(() =>
      guard(
        jane,
        roles,
        role([{ verbs: ["get", "delete"], apiGroups: [""], resources: ["pods", "secrets"] }]),
        undefined,
      ),
    );
    expect(refused.code).toBe(403);
    expect(refused.message).toBe(
      'roles.rbac.authorization.k8s.io "r" is forbidden: user "jane" (groups=["devs" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n' +
        '{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}\n' +
        '{APIGroups:[""], Resources:["secrets"], Verbs:["get" "delete"]}',
    );
  });

  it("checks Roles only in the namespace the user holds the permissions in", () => {
    const { guard } = setup();
    const elsewhere = {
      ...role([{ verbs: ["get"], apiGroups: [""], resources: ["pods"] }]),
      metadata: { name: "r", namespace: "dev" },
    };
    expect(refusal(() => guard(jane, roles, elsewhere, undefined)).code).toBe(403);
  });

  it("allows binding a role with the bind verb on it, or whose permissions the user holds", () => {
    const { guard } = setup();
    expect(() => guard(jane, bindings, binding("secrets-reader"), undefined)).not.toThrow();
    expect(() => guard(jane, bindings, binding("pods-rw"), undefined)).not.toThrow();
    expect(refusal(() => guard(jane, bindings, binding("deployments-admin"), undefined)).message).toContain(
      '{APIGroups:["apps"], Resources:["deployments"], Verbs:["*"]}',
    );
    expect(refusal(() => guard(jane, bindings, binding("missing"), undefined)).message).toBe(
      'rolebindings.rbac.authorization.k8s.io "b" is forbidden: clusterrole.rbac.authorization.k8s.io "missing" not found',
    );
  });

  it("exempts system:masters and updates that leave rules and references unchanged", () => {
    const { guard } = setup();
    const wide = role([{ verbs: ["*"], apiGroups: ["*"], resources: ["*"] }]);
    expect(() =>
      guard({ username: "root", groups: ["system:masters"] }, roles, wide, undefined),
    ).not.toThrow();
    expect(() =>
      guard(jane, roles, { ...wide, metadata: { name: "r", labels: { a: "b" } } }, wide),
    ).not.toThrow();
    expect(() => guard(jane, roles, wide, role([]))).toThrow(ApiError);
  });
});

describe("rule coverage (upstream's Covers)", () => {
  it.each([
    [
      "* covers everything",
      [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"] }],
      { verbs: ["delete"], apiGroups: ["apps"], resources: ["deployments/scale"] },
      true,
    ],
    [
      "*/scale covers a scale subresource",
      [{ verbs: ["get"], apiGroups: ["apps"], resources: ["*/scale"] }],
      { verbs: ["get"], apiGroups: ["apps"], resources: ["deployments/scale"] },
      true,
    ],
    [
      "a resource does not cover its subresources",
      [{ verbs: ["get"], apiGroups: [""], resources: ["pods"] }],
      { verbs: ["get"], apiGroups: [""], resources: ["pods/log"] },
      false,
    ],
    [
      "named permissions do not cover all names",
      [{ verbs: ["get"], apiGroups: [""], resources: ["secrets"], resourceNames: ["a"] }],
      { verbs: ["get"], apiGroups: [""], resources: ["secrets"] },
      false,
    ],
    [
      "unnamed permissions cover names",
      [{ verbs: ["get"], apiGroups: [""], resources: ["secrets"] }],
      { verbs: ["get"], apiGroups: [""], resources: ["secrets"], resourceNames: ["a"] },
      true,
    ],
    [
      "prefix* URLs cover longer paths",
      [{ verbs: ["get"], nonResourceURLs: ["/apis/*"] }],
      { verbs: ["get"], nonResourceURLs: ["/apis/apps"] },
      true,
    ],
    [
      "a wildcard verb asked for needs a wildcard held",
      [{ verbs: ["get", "list"], apiGroups: [""], resources: ["pods"] }],
      { verbs: ["*"], apiGroups: [""], resources: ["pods"] },
      false,
    ],
  ])("%s", (_name, owned, wanted, covered) => {
    expect(uncovered(owned, [wanted]).length === 0).toBe(covered);
  });

  it("prints rules as upstream's CompactString", () => {
    expect(compactRule({ verbs: ["get"], nonResourceURLs: ["/metrics"] })).toBe(
      '{NonResourceURLs:["/metrics"], Verbs:["get"]}',
    );
  });
});
