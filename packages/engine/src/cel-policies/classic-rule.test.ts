import type { KubeObject, Policy } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { createEngine } from "../engine.js";

function policy(cel: Record<string, unknown>, extra: Record<string, unknown> = {}): Policy {
  return {
    apiVersion: "kyverno.io/v1",
    kind: "ClusterPolicy",
    metadata: { name: "cel" },
    spec: {
      validationFailureAction: "Enforce",
      background: true,
      rules: [
        {
          name: "check",
          match: { any: [{ resources: { kinds: ["Pod"] } }] },
          validate: { cel },
          ...extra,
        },
      ],
    },
  } as unknown as Policy;
}

const pod = (hostNetwork: boolean): KubeObject => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "p", namespace: "ns" },
  spec: { hostNetwork, containers: [{ name: "c", image: "nginx" }] },
});

const deployment: KubeObject = {
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "d", namespace: "ns" },
  spec: { template: { spec: { hostNetwork: true, containers: [{ name: "c", image: "nginx" }] } } },
};

describe("validate.cel rules of ClusterPolicies", () => {
  const engine = createEngine();
  const compiled = engine.compile(
    policy({
      variables: [{ name: "host", expression: "object.spec.?hostNetwork.orValue(false)" }],
      expressions: [{ expression: "!variables.host", message: "host networking is not allowed" }],
    }),
  );
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.issues));

  it("evaluates the expressions with the rule's variables", () => {
    expect(compiled.policy.unsupported).toEqual([]);
    expect(engine.validate(compiled.policy, { resource: pod(false) }).rules[0]).toMatchObject({
      name: "check",
      status: "pass",
    });
    expect(engine.validate(compiled.policy, { resource: pod(true) }).rules[0]).toMatchObject({
      status: "fail",
      message: "host networking is not allowed",
    });
  });

  it("applies to Pod controllers through the autogen rules", () => {
    expect(compiled.policy.ruleNames).toEqual(["check", "autogen-check", "autogen-cronjob-check"]);
    expect(engine.validate(compiled.policy, { resource: deployment }).rules[0]).toMatchObject({
      name: "autogen-check",
      status: "fail",
    });
  });

  it("fails on an evaluation error, as the API server's validator denies", () => {
    const p = engine.compile(policy({ expressions: [{ expression: "object.spec.nodeName == 'x'" }] }));
    if (!p.ok) throw new Error("compile");
    expect(engine.validate(p.policy, { resource: pod(false) }).rules[0]?.status).toBe("fail");
  });

  it("reports audit annotations as the result's properties", () => {
    const p = engine.compile(
      policy({
        expressions: [{ expression: "true" }],
        auditAnnotations: [{ key: "host", valueExpression: "string(object.spec.hostNetwork)" }],
      }),
    );
    if (!p.ok) throw new Error("compile");
    expect(engine.validate(p.policy, { resource: pod(true) }).rules[0]?.properties).toEqual({ host: "true" });
  });

  it("skips the rule when a CEL precondition is false", () => {
    const p = engine.compile(
      policy(
        { expressions: [{ expression: "false" }] },
        { celPreconditions: [{ name: "host-only", expression: "object.spec.hostNetwork" }] },
      ),
    );
    if (!p.ok) throw new Error("compile");
    expect(engine.validate(p.policy, { resource: pod(false) }).rules[0]?.status).toBe("skip");
    expect(engine.validate(p.policy, { resource: pod(true) }).rules[0]?.status).toBe("fail");
  });

  it("reports an expression that does not compile with its field path", () => {
    const p = engine.compile(policy({ expressions: [{ expression: "object.spec.(" }] }));
    expect(p.ok).toBe(false);
    if (p.ok) return;
    expect(p.issues[0]?.path).toBe("spec.rules[0].validate.cel.expressions[0].expression");
  });
});
