import type { KubeObject, Policy, PolicyException } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { createEngine } from "../engine.js";
import { policyReportResults } from "../report/report.js";

const policy: Policy = {
  apiVersion: "kyverno.io/v1",
  kind: "ClusterPolicy",
  metadata: { name: "disallow-host-namespaces" },
  spec: {
    applyRules: "All",
    validationFailureAction: "Enforce",
    background: true,
    admission: true,
    emitWarning: false,
    failurePolicy: "Fail",
    rules: [
      {
        name: "host-namespaces",
        match: { any: [{ resources: { kinds: ["Pod"] } }] },
        validate: { pattern: { spec: { "=(hostNetwork)": false } } },
      },
    ],
  },
};

const pod = (name: string, ns: string): KubeObject =>
  ({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: ns },
    spec: { hostNetwork: true, containers: [] },
  }) as KubeObject;

function exception(
  ns: string,
  ruleNames: string[],
  extra: Partial<PolicyException["spec"]> = {},
): PolicyException {
  return {
    apiVersion: "kyverno.io/v2",
    kind: "PolicyException",
    metadata: { name: "allow-tools", namespace: ns },
    spec: {
      exceptions: [{ policyName: "disallow-host-namespaces", ruleNames }],
      match: { any: [{ resources: { kinds: ["Pod"], namespaces: ["tools"], names: ["important-*"] } }] },
      ...extra,
    },
  };
}

function evaluate(resource: KubeObject, exceptions: PolicyException[], exceptionNamespaces?: string[]) {
  const engine = createEngine(exceptionNamespaces ? { exceptionNamespaces } : {});
  const c = engine.compile(policy);
  if (!c.ok) throw new Error("compile");
  return engine.validate(c.policy, { resource, exceptions })!.rules[0];
}

describe("PolicyException", () => {
  it("turns a matching rule result into skip with upstream's message", () => {
    expect(
      evaluate(pod("important-tool", "tools"), [exception("kyverno", ["host-namespaces"])]),
    ).toMatchObject({
      status: "skip",
      message: "rule is skipped due to policy exception: kyverno/allow-tools",
      exception: { namespace: "kyverno", name: "allow-tools" },
    });
  });
  it("does not apply to resources outside its match", () => {
    expect(evaluate(pod("other", "tools"), [exception("kyverno", ["host-namespaces"])])?.status).toBe("fail");
  });
  it("names rules with wildcards and checks conditions", () => {
    expect(evaluate(pod("important-x", "tools"), [exception("kyverno", ["*"])])?.status).toBe("skip");
    const cond = exception("kyverno", ["host-namespaces"], {
      conditions: {
        any: [{ key: "{{ request.object.metadata.name }}", operator: "Equals", value: "important-y" }],
      },
    });
    expect(evaluate(pod("important-x", "tools"), [cond])?.status).toBe("fail");
    expect(evaluate(pod("important-y", "tools"), [cond])?.status).toBe("skip");
  });
  it("ignores exceptions from namespaces that are not accepted", () => {
    expect(
      evaluate(pod("important-x", "tools"), [exception("team-a", ["host-namespaces"])], ["kyverno"])?.status,
    ).toBe("fail");
  });

  it("names the exceptions that exempted Pod Security controls in the report properties", () => {
    const pss: Policy = {
      ...policy,
      spec: {
        ...policy.spec,
        rules: [
          {
            name: "host-namespaces",
            match: { any: [{ resources: { kinds: ["Pod"] } }] },
            validate: { podSecurity: { level: "baseline", version: "latest" } },
          },
        ],
      },
    };
    const engine = createEngine();
    const c = engine.compile(pss);
    if (!c.ok) throw new Error("compile");
    const exempt = exception("kyverno", ["host-namespaces"], {
      podSecurity: [{ controlName: "Host Namespaces" }],
    });
    const response = engine.validate(c.policy, {
      resource: pod("important-tool", "tools"),
      exceptions: [exempt],
    });
    expect(response.rules[0]).toMatchObject({ status: "pass", properties: { exceptions: "allow-tools" } });
    expect(policyReportResults(response)[0]?.properties).toEqual({ exceptions: "allow-tools" });
    const outside = engine.validate(c.policy, { resource: pod("other", "tools"), exceptions: [exempt] });
    expect(outside.rules[0]).toMatchObject({ status: "fail" });
    // Outside the exception, only upstream's Pod Security properties of the failure.
    expect(outside.rules[0]?.properties).toEqual({
      standard: "baseline",
      version: "latest",
      controls: "hostNamespaces",
      controlsJSON: '[{"ID":"hostNamespaces","Images":null,"Name":"host namespaces"}]',
    });
  });
});
