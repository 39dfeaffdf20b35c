import { expect, test } from "vitest";
import { classifyDocument } from "./classify.js";

test("classifyDocument tells kinds apart by group and kind", () => {
  const cases: Array<[unknown, string]> = [
    [{ apiVersion: "kyverno.io/v1", kind: "ClusterPolicy" }, "ClusterPolicy"],
    [{ apiVersion: "kyverno.io/v2beta1", kind: "Policy" }, "Policy"],
    [{ apiVersion: "kyverno.io/v2", kind: "PolicyException" }, "PolicyException"],
    [{ apiVersion: "kyverno.io/v2", kind: "ClusterCleanupPolicy" }, "Resource"],
    [{ apiVersion: "policies.kyverno.io/v1", kind: "ValidatingPolicy" }, "CelPolicy"],
    [{ apiVersion: "policies.kyverno.io/v1", kind: "PolicyException" }, "CelPolicyException"],
    [{ apiVersion: "admissionregistration.k8s.io/v1", kind: "ValidatingAdmissionPolicy" }, "AdmissionPolicy"],
    [{ apiVersion: "cli.kyverno.io/v1alpha1", kind: "Test" }, "Test"],
    [{ apiVersion: "cli.kyverno.io/v1alpha1", kind: "Value" }, "Values"],
    [{ apiVersion: "cli.kyverno.io/v1alpha1", kind: "UserInfo" }, "UserInfo"],
    [{ apiVersion: "v1", kind: "Pod" }, "Resource"],
    [{ apiVersion: "example.com/v1", kind: "ClusterPolicy" }, "Resource"],
    [{ policies: [] }, "Untyped"],
    [[1], "NotAnObject"],
    ["x", "NotAnObject"],
  ];
  for (const [value, expected] of cases) expect(classifyDocument(value as never)).toBe(expected);
});
