import { describe, expect, it } from "vitest";
import { formatLoadError } from "../load/errors.js";
import { loadAdmissionPolicy, loadCelPolicy, loadCelPolicyException } from "./cel-load.js";
import type { JsonValue } from "./types.js";

const where = { file: "policy.yaml", document: 0 };

const vpol = (spec: Record<string, JsonValue>, apiVersion = "policies.kyverno.io/v1"): JsonValue => ({
  apiVersion,
  kind: "ValidatingPolicy",
  metadata: { name: "check" },
  spec,
});

function errors(result: { ok: boolean; errors?: Parameters<typeof formatLoadError>[0][] }): string[] {
  return result.ok ? [] : (result.errors ?? []).map(formatLoadError);
}

describe("loadCelPolicy", () => {
  it("loads every served version of the policies.kyverno.io kinds", () => {
    for (const version of ["v1alpha1", "v1beta1", "v1"]) {
      const loaded = loadCelPolicy(
        vpol({ validations: [{ expression: "true" }] }, `policies.kyverno.io/${version}`),
        where,
      );
      expect(loaded.ok).toBe(true);
    }
    const mpol = loadCelPolicy(
      {
        apiVersion: "policies.kyverno.io/v1alpha1",
        kind: "MutatingPolicy",
        metadata: { name: "m" },
        spec: { mutations: [{ patchType: "JSONPatch", jsonPatch: { expression: "[]" } }] },
      },
      where,
    );
    expect(mpol.ok).toBe(true);
  });

  it("names unknown fields, wrong enums and an unsupported version", () => {
    expect(errors(loadCelPolicy(vpol({ validation: [] }), where)).join("\n")).toContain(
      'unknown field "validation" (did you mean "validations"?)',
    );
    expect(errors(loadCelPolicy(vpol({ validationActions: ["Block"] }), where)).join("\n")).toContain(
      "spec.validationActions[0]",
    );
    expect(errors(loadCelPolicy(vpol({}, "policies.kyverno.io/v2"), where)).join("\n")).toContain(
      "unsupported apiVersion",
    );
    const namespacedAlpha = {
      ...(vpol({}, "policies.kyverno.io/v1alpha1") as object),
      kind: "NamespacedValidatingPolicy",
    };
    expect(loadCelPolicy(namespacedAlpha as JsonValue, where).ok).toBe(false);
  });

  it("requires the expression of a mutation's patch type", () => {
    const loaded = loadCelPolicy(
      {
        apiVersion: "policies.kyverno.io/v1",
        kind: "MutatingPolicy",
        metadata: { name: "m" },
        spec: { mutations: [{ patchType: "ApplyConfiguration" }] },
      },
      where,
    );
    expect(errors(loaded).join("\n")).toContain("applyConfiguration is required");
  });
});

describe("loadCelPolicyException and loadAdmissionPolicy", () => {
  it("loads a CEL PolicyException and requires policyRefs", () => {
    const ok = loadCelPolicyException(
      {
        apiVersion: "policies.kyverno.io/v1",
        kind: "PolicyException",
        metadata: { name: "e", namespace: "ns" },
        spec: {
          policyRefs: [{ name: "check", kind: "ValidatingPolicy" }],
          matchConditions: [{ name: "a", expression: "true" }],
        },
      },
      where,
    );
    expect(ok.ok).toBe(true);
    const missing = loadCelPolicyException(
      { apiVersion: "policies.kyverno.io/v1", kind: "PolicyException", metadata: { name: "e" }, spec: {} },
      where,
    );
    expect(errors(missing).join("\n")).toContain("policyRefs");
  });

  it("loads ValidatingAdmissionPolicies and their bindings", () => {
    const vap = loadAdmissionPolicy(
      {
        apiVersion: "admissionregistration.k8s.io/v1",
        kind: "ValidatingAdmissionPolicy",
        metadata: { name: "vap" },
        spec: { validations: [{ expression: "true" }], paramKind: { apiVersion: "v1", kind: "ConfigMap" } },
      },
      where,
    );
    expect(vap.ok).toBe(true);
    const binding = loadAdmissionPolicy(
      {
        apiVersion: "admissionregistration.k8s.io/v1",
        kind: "ValidatingAdmissionPolicyBinding",
        metadata: { name: "b" },
        spec: { policyName: "vap", validationActions: ["Deny"], paramRef: { name: "cfg", namespace: "ns" } },
      },
      where,
    );
    expect(binding.ok).toBe(true);
  });
});
