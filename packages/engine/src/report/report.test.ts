import { describe, expect, it } from "vitest";
import type { PolicyResponse } from "../response/types.js";
import { policyReportResults, reportSummary } from "./report.js";

const response: PolicyResponse = {
  policy: { kind: "Policy", name: "p", namespace: "team" },
  resource: { apiVersion: "v1", kind: "Pod", name: "web", namespace: "team", uid: "u1" },
  rules: [
    {
      name: "a",
      type: "Validation",
      status: "fail",
      message: "bad",
      failureAction: "Audit",
      properties: { k: "v" },
    },
    { name: "b", type: "Validation", status: "pass", message: "ok", failureAction: "Enforce" },
    { name: "m", type: "Mutation", status: "pass", message: "mutated", failureAction: "Audit" },
  ],
  category: "Pod Security",
  severity: "High",
  background: true,
  timestamp: 1_700_000_000_500,
};

describe("policyReportResults", () => {
  it("builds one result per validate rule with upstream's fields", () => {
    expect(policyReportResults(response)).toEqual([
      {
        source: "kyverno",
        policy: "team/p",
        rule: "a",
        result: "fail",
        message: "bad",
        resources: [{ apiVersion: "v1", kind: "Pod", name: "web", namespace: "team", uid: "u1" }],
        scored: true,
        timestamp: { seconds: 1_700_000_000, nanos: 0 },
        category: "Pod Security",
        severity: "high",
        properties: { k: "v" },
      },
      expect.objectContaining({ rule: "b", result: "pass" }),
    ]);
  });
  it("turns failures into warnings for unscored policies and, with auditWarn, for Audit rules", () => {
    expect(policyReportResults(response, { unscored: true })[0]).toMatchObject({
      result: "warn",
      scored: false,
    });
    expect(policyReportResults(response, { auditWarn: true })[0]?.result).toBe("warn");
  });
  it("reports the rule types asked for: the admission controller's mutate rules too", () => {
    expect(policyReportResults(response, { ruleTypes: ["Mutation"] })).toEqual([
      expect.objectContaining({ rule: "m", result: "pass", message: "mutated" }),
    ]);
    expect(policyReportResults(response).map((r) => r.rule)).toEqual(["a", "b"]);
  });
  it("names the objects a generate rule made in generated-resources, as upstream", () => {
    const generating: PolicyResponse = {
      ...response,
      rules: [
        {
          name: "g",
          type: "Generation",
          status: "pass",
          message: "created",
          failureAction: "Audit",
          generated: [
            {
              object: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm", namespace: "prod" } },
              labels: {},
            },
            {
              object: {
                apiVersion: "rbac.authorization.k8s.io/v1",
                kind: "ClusterRole",
                metadata: { name: "r" },
              },
              labels: {},
            },
          ],
        },
      ],
    };
    expect(policyReportResults(generating, { ruleTypes: ["Generation"] })[0]?.properties).toEqual({
      "generated-resources":
        "/v1, Kind=ConfigMap Name=cm Namespace=prod; rbac.authorization.k8s.io/v1, Kind=ClusterRole Name=r Namespace=",
    });
  });
  it("summarises results by outcome", () => {
    expect(reportSummary(policyReportResults(response))).toEqual({
      pass: 1,
      fail: 1,
      warn: 0,
      error: 0,
      skip: 0,
    });
  });
});
