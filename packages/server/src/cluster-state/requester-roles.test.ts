import type { KubeObject } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { rolesOf } from "./requester-roles.js";

const binding = (
  kind: "RoleBinding" | "ClusterRoleBinding",
  roleRef: { kind: string; name: string },
  subjects: Array<Record<string, string>>,
  namespace?: string,
): KubeObject => ({
  apiVersion: "rbac.authorization.k8s.io/v1",
  kind,
  metadata: { name: `${roleRef.name}-binding`, ...(namespace ? { namespace } : {}) },
  roleRef: { apiGroup: "rbac.authorization.k8s.io", ...roleRef },
  subjects,
});

describe("rolesOf (upstream's GetRoleRef)", () => {
  const roleBindings = [
    binding("RoleBinding", { kind: "Role", name: "editor" }, [{ kind: "User", name: "jane" }], "team"),
    binding("RoleBinding", { kind: "ClusterRole", name: "view" }, [{ kind: "Group", name: "devs" }], "team"),
    binding(
      "RoleBinding",
      { kind: "Role", name: "deployer" },
      [{ kind: "ServiceAccount", name: "ci" }],
      "build",
    ),
    binding("RoleBinding", { kind: "Role", name: "other" }, [{ kind: "User", name: "bob" }], "team"),
  ];
  const clusterRoleBindings = [
    binding("ClusterRoleBinding", { kind: "ClusterRole", name: "reader" }, [{ kind: "Group", name: "devs" }]),
    binding("ClusterRoleBinding", { kind: "ClusterRole", name: "pusher" }, [
      { kind: "ServiceAccount", name: "ci", namespace: "build" },
    ]),
  ];

  it("names Roles namespace:name and ClusterRoles by name, for the user and its groups", () => {
    expect(rolesOf({ username: "jane", groups: ["devs"] }, roleBindings, clusterRoleBindings)).toEqual({
      roles: ["team:editor"],
      clusterRoles: ["reader", "view"],
    });
  });

  it("matches a ServiceAccount subject in the binding's namespace unless it names its own", () => {
    expect(
      rolesOf({ username: "system:serviceaccount:build:ci" }, roleBindings, clusterRoleBindings),
    ).toEqual({ roles: ["build:deployer"], clusterRoles: ["pusher"] });
    expect(rolesOf({ username: "system:serviceaccount:team:ci" }, roleBindings, clusterRoleBindings)).toEqual(
      {
        roles: [],
        clusterRoles: [],
      },
    );
  });
});
