import type { Policy } from "@kyverno-ts/api";
import type { PolicyResponse, RuleResponse, RuleStatus } from "@kyverno-ts/engine";
import { describe, expect, it } from "vitest";
import { type Evaluated, type ExpectedResult, judgeLine } from "./judge.js";

const policy = (name: string, annotations: Record<string, string> = {}): Policy => ({
  apiVersion: "kyverno.io/v1",
  kind: "ClusterPolicy",
  metadata: { name, annotations },
  spec: {
    rules: [],
    applyRules: "All",
    validationFailureAction: "Audit",
    background: true,
    admission: true,
    emitWarning: false,
    failurePolicy: "Fail",
  },
});

const rule = (name: string, status: RuleStatus, message = ""): RuleResponse => ({
  name,
  type: "Validation",
  status,
  message,
  failureAction: "Audit",
});

function evaluated(
  policyName: string,
  kind: string,
  name: string,
  namespace: string,
  rules: RuleResponse[],
  annotations: Record<string, string> = {},
): Evaluated {
  const response: PolicyResponse = {
    policy: { kind: "ClusterPolicy", name: policyName },
    resource: { apiVersion: "v1", kind, name, namespace, uid: "" },
    rules,
    background: true,
    timestamp: 0,
  };
  return { policy: policy(policyName, annotations), response };
}

const line = (l: Partial<ExpectedResult>): ExpectedResult => ({
  policy: "p",
  rule: "r",
  result: "pass",
  ...l,
});

describe("judgeLine", () => {
  const responses = [
    evaluated("p", "Pod", "good", "default", [rule("r", "pass")]),
    evaluated("p", "Pod", "bad", "default", [rule("r", "fail", "nope")]),
    evaluated("p", "Deployment", "deploy", "prod", [rule("autogen-r", "fail")]),
    evaluated("p", "CronJob", "cron", "prod", [rule("autogen-cronjob-r", "skip")]),
    evaluated("p", "ConfigMap", "cm", "default", []),
  ];

  it("passes when the computed result equals the expected one, one outcome per resource", () => {
    const out = judgeLine("t.yaml", line({ resources: ["good", "default/bad"], result: "pass" }), responses);
    expect(out.map((o) => [o.resource, o.ok, o.actual, o.reason])).toEqual([
      ["good", true, "pass", "Ok"],
      ["default/bad", false, "fail", "Want pass, got fail"],
    ]);
  });

  it("matches autogen and autogen-cronjob rule names", () => {
    const out = judgeLine(
      "t",
      line({ kind: "Deployment", resources: ["deploy"], result: "fail" }),
      responses,
    );
    expect(out[0]?.ok).toBe(true);
    const cron = judgeLine(
      "t",
      line({ kind: "CronJob", resources: ["prod/cron"], result: "skip" }),
      responses,
    );
    expect(cron[0]?.ok).toBe(true);
  });

  it("filters by kind", () => {
    const out = judgeLine("t", line({ kind: "Deployment", resources: ["good"] }), responses);
    expect(out[0]).toMatchObject({ ok: false, reason: "Not found", actual: "not found" });
  });

  it("counts a policy that answered without the rule as Excluded (passing)", () => {
    const out = judgeLine("t", line({ resources: ["cm"], result: "fail" }), responses);
    expect(out[0]).toMatchObject({ ok: true, reason: "Excluded", actual: "excluded" });
  });

  it("fails with Not found when no response names the resource", () => {
    const out = judgeLine("t", line({ resources: ["missing"] }), responses);
    expect(out[0]).toMatchObject({ ok: false, reason: "Not found" });
  });

  it("judges every response of the policy when the line names no resource", () => {
    const out = judgeLine("t", line({ kind: "Pod", result: "pass" }), responses);
    expect(out.map((o) => [o.resource, o.ok])).toEqual([
      ["default/good", true],
      ["default/bad", false],
    ]);
  });

  it("turns failures of unscored policies into warnings", () => {
    const r = [
      evaluated("p", "Pod", "x", "default", [rule("r", "fail")], { "policies.kyverno.io/scored": "false" }),
    ];
    expect(judgeLine("t", line({ resources: ["x"], result: "warn" }), r)[0]?.ok).toBe(true);
  });

  it("reports mutate/generate lines as not supported instead of passing them", () => {
    const out = judgeLine("t", line({ resources: ["good"], patchedResources: "patched.yaml" }), responses);
    expect(out[0]).toMatchObject({ ok: false, reason: "mutate/generate not supported yet" });
  });

  it("accepts the deprecated status and resource fields", () => {
    const out = judgeLine("t", { policy: "p", rule: "r", status: "fail", resource: "bad" }, responses);
    expect(out[0]).toMatchObject({ ok: true, expected: "fail" });
  });
});
