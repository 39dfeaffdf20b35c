import type { KubeObject, Policy, Validation } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { createEngine } from "../engine.js";

function policy(validate: Validation): Policy {
  return {
    apiVersion: "kyverno.io/v1",
    kind: "ClusterPolicy",
    metadata: { name: "p" },
    spec: {
      rules: [{ name: "r", match: { any: [{ resources: { kinds: ["Pod"] } }] }, validate }],
      applyRules: "All",
      validationFailureAction: "Audit",
      background: true,
      admission: true,
      emitWarning: false,
      failurePolicy: "Fail",
    },
  };
}

const POD = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "web", namespace: "default" },
  spec: { containers: [{ name: "c", image: "nginx:1.27" }] },
} as KubeObject;

function ruleOf(validate: Validation) {
  const engine = createEngine({ clock: { now: () => new Date("2026-01-01T00:00:00Z").getTime() } });
  const compiled = engine.compile(policy(validate));
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.issues));
  const [rule] = engine.validate(compiled.policy, { resource: POD }).rules;
  return rule && { status: rule.status, message: rule.message };
}

describe("skip and foreach messages, as upstream reports them", () => {
  it("a pattern skipped by its conditional anchor reports the anchor error, without naming the rule", () => {
    expect(ruleOf({ pattern: { spec: { "(hostNetwork)": true, containers: [{ name: "x" }] } } })).toEqual({
      status: "skip",
      message: "conditional anchor mismatch: conditional anchor key doesn't exist in the resource",
    });
  });

  it("anyPattern alternatives that all skipped are listed with their index", () => {
    expect(
      ruleOf({
        anyPattern: [{ spec: { "(hostNetwork)": true } }, { spec: { "(hostPID)": true } }],
      }),
    ).toEqual({
      status: "skip",
      message:
        "rule r[0] skipped: conditional anchor mismatch: conditional anchor key doesn't exist in the resource rule r[1] skipped: conditional anchor mismatch: conditional anchor key doesn't exist in the resource",
    });
  });

  it("a foreach that applied to no element is 'rule skipped', one that passed 'rule passed'", () => {
    const deny = {
      conditions: { any: [{ key: "{{ element.image }}", operator: "Equals", value: "*:latest" }] },
    };
    expect(ruleOf({ foreach: [{ list: "request.object.spec.initContainers", deny }] })).toEqual({
      status: "skip",
      message: "rule skipped",
    });
    expect(ruleOf({ foreach: [{ list: "request.object.spec.containers", deny }] })).toEqual({
      status: "pass",
      message: "rule passed",
    });
  });
});
