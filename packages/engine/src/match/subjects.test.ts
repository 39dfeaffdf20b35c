import type { Subject } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { matchRoles, matchSubjects, type RequestUser } from "./subjects.js";

const alice: RequestUser = { username: "alice@corp.com", groups: ["devs", "system:authenticated"] };
const sa: RequestUser = { username: "system:serviceaccount:kube-system:replicaset-controller", groups: [] };

describe("matchSubjects", () => {
  it.each<[string, Subject[], RequestUser | undefined, boolean]>([
    ["user by name", [{ kind: "User", name: "alice@corp.com" }], alice, true],
    ["user by wildcard", [{ kind: "User", name: "*@corp.com" }], alice, true],
    ["other user", [{ kind: "User", name: "bob" }], alice, false],
    ["user does not match a group name", [{ kind: "User", name: "devs" }], alice, false],
    ["group", [{ kind: "Group", name: "devs" }], alice, true],
    ["group wildcard", [{ kind: "Group", name: "system:*" }], alice, true],
    ["group does not match the username", [{ kind: "Group", name: "alice@corp.com" }], alice, false],
    [
      "service account",
      [{ kind: "ServiceAccount", name: "replicaset-controller", namespace: "kube-system" }],
      sa,
      true,
    ],
    ["service account wildcard", [{ kind: "ServiceAccount", name: "*", namespace: "kube-*" }], sa, true],
    [
      "service account other namespace",
      [{ kind: "ServiceAccount", name: "*", namespace: "default" }],
      sa,
      false,
    ],
    [
      "any subject of the list",
      [
        { kind: "User", name: "bob" },
        { kind: "Group", name: "devs" },
      ],
      alice,
      true,
    ],
    ["no user info", [{ kind: "User", name: "*" }], undefined, false],
  ])("%s", (_name, subjects, user, expected) => {
    expect(matchSubjects(subjects, user)).toBe(expected);
  });
});

describe("matchRoles", () => {
  it.each<[string[], string[] | undefined, boolean]>([
    [["cluster-admin"], ["view", "cluster-admin"], true],
    [["cluster-admin"], ["view"], false],
    [["cluster-*"], ["cluster-admin"], false],
    [["admin"], undefined, false],
  ])("%o held %o → %s", (wanted, held, expected) => {
    expect(matchRoles(wanted, held)).toBe(expected);
  });
});
