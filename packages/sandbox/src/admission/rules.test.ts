import { describe, expect, it } from "vitest";
import type { WebhookRule } from "./config.js";
import { isExemptFromWebhooks, ruleMatches } from "./rules.js";
import { podAttrs } from "./testing/attrs.js";
import type { AdmissionAttributes } from "./types.js";

const rule = (r: Partial<WebhookRule>): WebhookRule => ({
  operations: ["*"],
  apiGroups: ["*"],
  apiVersions: ["*"],
  resources: ["*"],
  scope: "*",
  ...r,
});

const deployment = podAttrs({
  kind: { group: "apps", version: "v1", kind: "Deployment" },
  resource: { group: "apps", version: "v1", resource: "deployments" },
});
const podStatus = podAttrs({ operation: "UPDATE", subResource: "status" });
const namespace = podAttrs({
  kind: { group: "", version: "v1", kind: "Namespace" },
  resource: { group: "", version: "v1", resource: "namespaces" },
  namespaced: false,
  namespace: "team-a",
  name: "team-a",
});
const clusterRole = podAttrs({
  kind: { group: "rbac.authorization.k8s.io", version: "v1", kind: "ClusterRole" },
  resource: { group: "rbac.authorization.k8s.io", version: "v1", resource: "clusterroles" },
  namespaced: false,
  namespace: "",
});

describe("ruleMatches", () => {
  const cases: Array<[string, Partial<WebhookRule>, AdmissionAttributes, boolean]> = [
    ["core group by empty string", { apiGroups: [""] }, podAttrs(), true],
    ["other group", { apiGroups: ["apps"] }, podAttrs(), false],
    ["apps group", { apiGroups: ["apps"], resources: ["deployments"] }, deployment, true],
    ["version exact", { apiVersions: ["v1"] }, podAttrs(), true],
    ["version mismatch", { apiVersions: ["v1beta1"] }, podAttrs(), false],
    ["resource exact", { resources: ["pods"] }, podAttrs(), true],
    ["resource mismatch", { resources: ["configmaps"] }, podAttrs(), false],
    ["main resource does not match subresource", { resources: ["pods"] }, podStatus, false],
    ["subresource exact", { resources: ["pods/status"] }, podStatus, true],
    ["subresource exact does not match main", { resources: ["pods/status"] }, podAttrs(), false],
    ["pods/* matches subresource", { resources: ["pods/*"] }, podStatus, true],
    // Upstream's `sub == "*"` also holds for the empty subresource.
    ["pods/* also matches the main resource", { resources: ["pods/*"] }, podAttrs(), true],
    ["*/* matches main resources", { resources: ["*/*"] }, podAttrs(), true],
    ["* matches main resources", { resources: ["*"] }, podAttrs(), true],
    ["* does not match subresources", { resources: ["*"] }, podStatus, false],
    ["*/* matches subresources", { resources: ["*/*"] }, podStatus, true],
    ["*/status matches any status", { resources: ["*/status"] }, podStatus, true],
    ["operation listed", { operations: ["CREATE"] }, podAttrs(), true],
    ["operation not listed", { operations: ["UPDATE", "DELETE"] }, podAttrs(), false],
    ["CONNECT", { operations: ["CONNECT"] }, podAttrs({ operation: "CONNECT", subResource: "exec" }), false],
    [
      "CONNECT exec",
      { operations: ["CONNECT"], resources: ["pods/exec"] },
      podAttrs({ operation: "CONNECT", subResource: "exec" }),
      true,
    ],
    ["no operations", { operations: [] }, podAttrs(), false],
    ["scope Namespaced, namespaced object", { scope: "Namespaced" }, podAttrs(), true],
    ["scope Namespaced, cluster object", { scope: "Namespaced" }, clusterRole, false],
    ["scope Namespaced, Namespace object", { scope: "Namespaced" }, namespace, false],
    ["scope Cluster, cluster object", { scope: "Cluster" }, clusterRole, true],
    ["scope Cluster, Namespace object", { scope: "Cluster" }, namespace, true],
    ["scope Cluster, namespaced object", { scope: "Cluster" }, podAttrs(), false],
    ["scope *", { scope: "*" }, clusterRole, true],
    ["unknown scope", { scope: "Elsewhere" }, podAttrs(), false],
  ];
  it.each(cases)("%s", (_name, r, attrs, expected) => {
    expect(ruleMatches(rule(r), attrs)).toBe(expected);
  });
});

describe("isExemptFromWebhooks", () => {
  it.each([
    ["ValidatingWebhookConfiguration", true],
    ["MutatingWebhookConfiguration", true],
    ["ValidatingAdmissionPolicy", true],
    ["ValidatingAdmissionPolicyBinding", true],
  ])("%s is exempt: %s", (kind, expected) => {
    const attrs = podAttrs({ kind: { group: "admissionregistration.k8s.io", version: "v1", kind } });
    expect(isExemptFromWebhooks(attrs)).toBe(expected);
  });
  it("ordinary kinds are not", () => {
    expect(isExemptFromWebhooks(podAttrs())).toBe(false);
    expect(
      isExemptFromWebhooks(
        podAttrs({ kind: { group: "", version: "v1", kind: "ValidatingWebhookConfiguration" } }),
      ),
    ).toBe(false);
  });
});
