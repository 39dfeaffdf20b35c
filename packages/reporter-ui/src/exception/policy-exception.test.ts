import { describe, expect, it } from "vitest";
import { exceptionName, policyExceptionYaml, yamlScalar } from "./policy-exception.ts";

describe("policyExceptionYaml", () => {
  it("exempts a namespaced resource from the failing rules of each policy", () => {
    const yaml = policyExceptionYaml({
      resource: { kind: "Deployment", name: "web", namespace: "shop" },
      policies: [
        { policy: "require-probes", rules: ["autogen-validate-probes"] },
        { policy: "disallow-latest-tag", rules: ["autogen-validate-image-tag", "autogen-require-image-tag"] },
        { policy: "require-probes", rules: ["autogen-validate-probes"] },
      ],
    });
    expect(yaml).toBe(`apiVersion: kyverno.io/v2
kind: PolicyException
metadata:
  name: deployment-web-exception
  namespace: shop
spec:
  background: true
  exceptions:
    - policyName: disallow-latest-tag
      ruleNames:
        - autogen-require-image-tag
        - autogen-validate-image-tag
    - policyName: require-probes
      ruleNames:
        - autogen-validate-probes
  match:
    any:
      - resources:
          kinds:
            - Deployment
          names:
            - web
          namespaces:
            - shop
`);
  });

  it("puts a cluster-scoped resource's exception in the given or the kyverno namespace", () => {
    const yaml = policyExceptionYaml({
      resource: { kind: "Namespace", name: "legacy" },
      policies: [{ policy: "require-ns-labels", rules: ["check"] }],
    });
    expect(yaml).toContain("  namespace: kyverno\n");
    expect(yaml).not.toContain("namespaces:");
    expect(
      policyExceptionYaml({
        resource: { kind: "Namespace", name: "x" },
        policies: [],
        namespace: "policy-exceptions",
      }),
    ).toContain("namespace: policy-exceptions");
  });

  it("quotes scalars YAML would read as something else", () => {
    expect(yamlScalar("web")).toBe("web");
    expect(yamlScalar("true")).toBe('"true"');
    expect(yamlScalar("1.10")).toBe('"1.10"');
    expect(yamlScalar("a: b")).toBe('"a: b"');
    expect(yamlScalar("#x")).toBe('"#x"');
    expect(yamlScalar("")).toBe('""');
  });

  it("derives DNS-1123 names of at most 63 characters", () => {
    expect(exceptionName("Pod", "My_App.v2", "exception")).toBe("pod-my-app-v2-exception");
    const long = exceptionName("Deployment", "x".repeat(80), "exception");
    expect(long.length).toBeLessThanOrEqual(63);
    expect(long).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
  });
});
