import type { Policy } from "@kyverno-ts/api";
import type { PolicyResponse, RuleResponse, RuleStatus } from "@kyverno-ts/engine";
import { describe, expect, it } from "vitest";
import { type Evaluated, type ExpectedResult, type JudgeOptions, judgeLine } from "./judge.js";

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
  const resource = { apiVersion: "v1", kind, metadata: { name, namespace } };
  return {
    policy: policy(policyName, annotations),
    response,
    phase: "validate",
    original: resource,
    resource,
  };
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

  it("compares the patched resource with its entry in patchedResources, after dropping empty values", () => {
    const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "m", namespace: "default" }, spec: {} };
    const patched = { ...pod, metadata: { ...pod.metadata, labels: { team: "a" } }, status: null };
    const mutated: Evaluated = {
      ...evaluated("p", "Pod", "m", "default", [{ ...rule("r", "pass"), type: "Mutation" }]),
      phase: "mutate",
      original: pod,
      resource: pod,
    };
    mutated.response.patchedResource = patched;
    const files = (labels: Record<string, string>): JudgeOptions => ({
      files: () => ({
        ok: true,
        value: [
          { apiVersion: "v1", kind: "Pod", metadata: { name: "other", namespace: "default" } },
          { apiVersion: "v1", kind: "Pod", metadata: { name: "m", namespace: "default", labels } },
        ],
      }),
    });
    const l = line({ resources: ["m"], patchedResources: "patched.yaml" });
    expect(judgeLine("t", l, [mutated], files({ team: "a" }))[0]).toMatchObject({ ok: true, reason: "Ok" });
    const diff = judgeLine("t", l, [mutated], files({ team: "b" }))[0];
    expect(diff).toMatchObject({ ok: false, reason: "Resource diff" });
    expect(diff?.message).toContain('/metadata/labels/team: expected "b", got "a"');
    // Upstream counts a failed resource check as success when the line expects `fail`.
    const fail = line({ resources: ["m"], patchedResources: "patched.yaml", result: "fail" });
    expect(judgeLine("t", fail, [mutated], files({ team: "b" }))[0]?.ok).toBe(true);
    const missing = judgeLine("t", l, [mutated], { files: () => ({ ok: false, error: "nope" }) })[0];
    expect(missing).toMatchObject({
      ok: false,
      reason: "Resource error",
      message: expect.stringContaining("nope"),
    });
  });

  it("finds mutate-existing targets by name and compares the patched target", () => {
    const trigger = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm", namespace: "staging" } };
    const target = { apiVersion: "v1", kind: "Secret", metadata: { name: "s", namespace: "staging" } };
    const patched = { ...target, metadata: { ...target.metadata, labels: { foo: "bar" } } };
    const e: Evaluated = {
      ...evaluated("p", "ConfigMap", "cm", "staging", [
        { ...rule("r", "pass"), type: "Mutation", patchedTargets: [{ target, patched, patch: [] }] },
      ]),
      phase: "mutateExisting",
      original: trigger,
      resource: trigger,
    };
    const options: JudgeOptions = { files: () => ({ ok: true, value: [trigger, patched] }) };
    const named = judgeLine("t", line({ resources: ["s"], patchedResources: "f.yaml" }), [e], options);
    expect(named.map((o) => [o.resource, o.ok])).toEqual([["s", true]]);
    const all = judgeLine("t", line({ patchedResources: "f.yaml" }), [e], options);
    expect(all.map((o) => [o.kind, o.resource, o.ok])).toEqual([
      ["ConfigMap", "staging/cm", true],
      ["Secret", "staging/s", true],
    ]);
  });

  it("compares generated objects without Kyverno's generate labels", () => {
    const object = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "g", namespace: "ns" },
      data: { a: "1" },
    };
    const e: Evaluated = {
      ...evaluated("p", "Namespace", "ns", "", [
        {
          ...rule("r", "pass"),
          type: "Generation",
          generated: [{ object, labels: { "generate.kyverno.io/rule-name": "r" } }],
        },
      ]),
      phase: "generate",
    };
    const expected = {
      ...object,
      metadata: {
        ...object.metadata,
        labels: { "generate.kyverno.io/policy-name": "p", "app.kubernetes.io/managed-by": "kyverno" },
      },
    };
    const options: JudgeOptions = { files: () => ({ ok: true, value: [expected] }) };
    const l = line({ resources: ["ns"], generatedResource: "g.yaml" });
    expect(judgeLine("t", l, [e], options)[0]).toMatchObject({ ok: true, reason: "Ok" });
    const other = { ...expected, data: { a: "2" } };
    expect(judgeLine("t", l, [e], { files: () => ({ ok: true, value: [other] }) })[0]).toMatchObject({
      ok: false,
      reason: "Resource diff",
    });
  });

  it("accepts the deprecated status and resource fields", () => {
    const out = judgeLine("t", { policy: "p", rule: "r", status: "fail", resource: "bad" }, responses);
    expect(out[0]).toMatchObject({ ok: true, expected: "fail" });
  });
});
