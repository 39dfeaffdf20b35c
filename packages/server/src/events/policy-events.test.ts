import type { PolicyResponse, RuleResponse } from "@kyverno-ts/engine";
import type { EventRecord } from "@kyverno-ts/kube";
import { describe, expect, it } from "vitest";
import { createPolicyEvents, type EventReason, parseOmitEvents, policyRefFrom } from "./policy-events.js";

const rule = (over: Partial<RuleResponse>): RuleResponse => ({
  name: "check-team",
  type: "Validation",
  status: "fail",
  message: "validation error: label team is required. rule check-team failed at path /metadata/labels/team/",
  failureAction: "Audit",
  ...over,
});

const response = (rules: RuleResponse[]): PolicyResponse => ({
  policy: { kind: "ClusterPolicy", name: "require-labels" },
  resource: { apiVersion: "v1", kind: "Pod", namespace: "team-a", name: "web", uid: "pod-uid" },
  rules,
  background: true,
  timestamp: 0,
});

function setup(omit?: EventReason[]) {
  const events: EventRecord[] = [];
  const emitter = createPolicyEvents({
    recorder: { record: (e) => events.push(e) },
    ...(omit ? { omit } : {}),
    policyRef: policyRefFrom(() => ({ apiVersion: "kyverno.io/v1", metadata: { uid: "policy-uid" } })),
  });
  return { events, emitter };
}

const POLICY = {
  apiVersion: "kyverno.io/v1",
  kind: "ClusterPolicy",
  name: "require-labels",
  uid: "policy-uid",
};
const POD = { apiVersion: "v1", kind: "Pod", namespace: "team-a", name: "web", uid: "pod-uid" };

describe("policy events", () => {
  it("an audited failure: PolicyViolation on the policy (resource related) and on the resource (policy related)", () => {
    const { events, emitter } = setup();
    emitter.admission([response([rule({})])], false);
    expect(events).toEqual([
      {
        reportingController: "kyverno-admission",
        regarding: POLICY,
        related: POD,
        type: "Warning",
        reason: "PolicyViolation",
        action: "Resource Passed",
        note: "Pod team-a/web: [check-team] fail; validation error: label team is required. rule check-team failed at path /metadata/labels/team/",
      },
      {
        reportingController: "kyverno-admission",
        regarding: POD,
        related: POLICY,
        type: "Warning",
        reason: "PolicyViolation",
        action: "Resource Passed",
        note: "policy require-labels/check-team fail: validation error: label team is required. rule check-team failed at path /metadata/labels/team/",
      },
    ]);
  });

  it("a blocked request: the policy's Event of each failing Enforce rule only, marked blocked", () => {
    const { events, emitter } = setup();
    emitter.admission(
      [
        response([
          rule({ failureAction: "Enforce" }),
          rule({ name: "audit-only" }),
          rule({ name: "ok", status: "pass" }),
        ]),
      ],
      true,
    );
    expect(events.map((e) => [e.regarding.kind, e.reason, e.action, e.note.split(";")[0]])).toEqual([
      ["ClusterPolicy", "PolicyViolation", "Resource Blocked", "Pod team-a/web: [check-team] fail (blocked)"],
    ]);
  });

  it("an error rule is a PolicyError; background scans report as kyverno-scan", () => {
    const { events, emitter } = setup();
    emitter.scan(response([rule({ status: "error", message: "variable substitution failed" })]));
    expect(events.map((e) => [e.reportingController, e.regarding.kind, e.reason, e.note])).toEqual([
      [
        "kyverno-scan",
        "ClusterPolicy",
        "PolicyError",
        "Pod team-a/web: [check-team] error; variable substitution failed",
      ],
      [
        "kyverno-scan",
        "Pod",
        "PolicyError",
        "policy require-labels/check-team error: variable substitution failed",
      ],
    ]);
  });

  it("omits PolicyApplied and PolicySkipped by default, emits them when not omitted", () => {
    const passing = response([rule({ status: "pass", message: "ok" })]);
    const excepted = response([
      rule({
        status: "skip",
        message: "rule skipped due to policy exception",
        exception: { namespace: "ex", name: "allow-web" },
      }),
    ]);
    const byDefault = setup();
    byDefault.emitter.scan(passing);
    byDefault.emitter.scan(excepted);
    expect(byDefault.events).toEqual([]);
    const all = setup([]);
    all.emitter.scan(passing);
    all.emitter.scan(excepted);
    expect(all.events.map((e) => [e.type, e.reason, e.regarding.kind, e.note])).toEqual([
      ["Normal", "PolicyApplied", "ClusterPolicy", "Pod team-a/web: pass"],
      [
        "Normal",
        "PolicySkipped",
        "ClusterPolicy",
        "resource Pod/team-a/web was skipped from rule check-team due to policy exception ex/allow-web",
      ],
      [
        "Normal",
        "PolicySkipped",
        "PolicyException",
        "resource Pod/team-a/web was skipped from policy rule require-labels/check-team",
      ],
    ]);
  });

  it("omitting PolicyViolation keeps PolicyError", () => {
    const { events, emitter } = setup(["PolicyViolation"]);
    emitter.scan(response([rule({}), rule({ name: "broken", status: "error" })]));
    expect(events.map((e) => e.reason)).toEqual(["PolicyError", "PolicyError"]);
  });

  it("--omitEvents accepts upstream's four types, comma-separated, and names an unknown one", () => {
    expect(parseOmitEvents("PolicyApplied,PolicySkipped")).toEqual({
      ok: true,
      reasons: ["PolicyApplied", "PolicySkipped"],
    });
    expect(parseOmitEvents("")).toEqual({ ok: true, reasons: [] });
    expect(parseOmitEvents("PolicyViolation, PolicyError")).toEqual({
      ok: true,
      reasons: ["PolicyViolation", "PolicyError"],
    });
    expect(parseOmitEvents("PolicyApplied,Violations")).toEqual({
      ok: false,
      message:
        '--omitEvents: unknown event type "Violations" (accepted: PolicyViolation, PolicyApplied, PolicyError, PolicySkipped)',
    });
  });
});
