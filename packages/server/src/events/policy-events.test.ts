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

  it("mutate rules: PolicyApplied 'is successfully mutated' (Resource Mutated) when not omitted, errors as PolicyError", () => {
    const mutated = response([rule({ type: "Mutation", status: "pass", message: "mutated Pod/web" })]);
    const byDefault = setup();
    byDefault.emitter.mutation([mutated], false);
    expect(byDefault.events).toEqual([]);
    const all = setup([]);
    all.emitter.mutation([mutated], false);
    all.emitter.mutation(
      [response([rule({ type: "Mutation", status: "error", message: "variable x not found" })])],
      false,
    );
    expect(all.events.map((e) => [e.type, e.reason, e.action, e.regarding.kind, e.note])).toEqual([
      [
        "Normal",
        "PolicyApplied",
        "Resource Mutated",
        "ClusterPolicy",
        "Pod team-a/web is successfully mutated",
      ],
      [
        "Warning",
        "PolicyError",
        "Resource Passed",
        "ClusterPolicy",
        "Pod team-a/web: [check-team] error; variable x not found",
      ],
      [
        "Warning",
        "PolicyError",
        "Resource Passed",
        "Pod",
        "policy require-labels/check-team error: variable x not found",
      ],
    ]);
    expect(all.events[0]?.related).toEqual(POD);
  });

  it("a mutation that denied the request: the policy's Event only, blocked", () => {
    const { events, emitter } = setup();
    emitter.mutation([response([rule({ type: "Mutation", status: "fail", message: "patch failed" })])], true);
    expect(events.map((e) => [e.regarding.kind, e.reason, e.action, e.note])).toEqual([
      [
        "ClusterPolicy",
        "PolicyViolation",
        "Resource Blocked",
        "Pod team-a/web: [check-team] fail (blocked); patch failed",
      ],
    ]);
  });

  it("a warn result is no violation: the policy applied (upstream's IsSuccessful)", () => {
    const { events, emitter } = setup([]);
    emitter.scan(response([rule({ status: "warn" })]));
    expect(events.map((e) => [e.reason, e.note])).toEqual([["PolicyApplied", "Pod team-a/web: pass"]]);
  });

  it("CEL kinds: the ValidatingPolicy or NamespacedValidatingPolicy is the policy side; a MutatingPolicy applied says pass", () => {
    const events: EventRecord[] = [];
    const cel = {
      ValidatingPolicy: { apiVersion: "policies.kyverno.io/v1", metadata: { uid: "vpol-uid" } },
      NamespacedValidatingPolicy: { apiVersion: "policies.kyverno.io/v1", metadata: { uid: "nvpol-uid" } },
      MutatingPolicy: { apiVersion: "policies.kyverno.io/v1alpha1", metadata: { uid: "mpol-uid" } },
    } as Record<string, { apiVersion: string; metadata: object }>;
    const emitter = createPolicyEvents({
      recorder: { record: (e) => events.push(e) },
      omit: [],
      policyRef: policyRefFrom((p) => cel[p.kind]),
    });
    const of = (policy: PolicyResponse["policy"], rules: RuleResponse[]): PolicyResponse => ({
      ...response(rules),
      policy,
    });
    emitter.admission(
      [
        of({ kind: "ValidatingPolicy", name: "require-team" }, [
          rule({ name: "", message: "team is required" }),
        ]),
      ],
      false,
    );
    emitter.scan(
      of({ kind: "NamespacedValidatingPolicy", name: "local", namespace: "team-a" }, [
        rule({ name: "", status: "error", message: "no such key: team" }),
      ]),
    );
    emitter.mutation(
      [
        of({ kind: "MutatingPolicy", name: "add-team" }, [
          rule({ name: "", type: "Mutation", status: "pass" }),
        ]),
      ],
      false,
    );
    expect(events.map((e) => [e.reportingController, e.reason, e.regarding, e.note])).toEqual([
      [
        "kyverno-admission",
        "PolicyViolation",
        {
          apiVersion: "policies.kyverno.io/v1",
          kind: "ValidatingPolicy",
          name: "require-team",
          uid: "vpol-uid",
        },
        "Pod team-a/web: [] fail; team is required",
      ],
      ["kyverno-admission", "PolicyViolation", POD, "policy require-team/ fail: team is required"],
      [
        "kyverno-scan",
        "PolicyError",
        {
          apiVersion: "policies.kyverno.io/v1",
          kind: "NamespacedValidatingPolicy",
          name: "local",
          namespace: "team-a",
          uid: "nvpol-uid",
        },
        "Pod team-a/web: [] error; no such key: team",
      ],
      ["kyverno-scan", "PolicyError", POD, "policy local/ error: no such key: team"],
      [
        "kyverno-admission",
        "PolicyApplied",
        {
          apiVersion: "policies.kyverno.io/v1alpha1",
          kind: "MutatingPolicy",
          name: "add-team",
          uid: "mpol-uid",
        },
        "Pod team-a/web: pass",
      ],
    ]);
  });

  it("a policy the cache no longer has: its kind's group (kyverno.io or policies.kyverno.io), no uid", () => {
    const ref = policyRefFrom(() => undefined);
    expect(ref({ kind: "Policy", name: "p", namespace: "team-a" })).toEqual({
      apiVersion: "kyverno.io/v1",
      kind: "Policy",
      name: "p",
      namespace: "team-a",
    });
    expect(ref({ kind: "ValidatingPolicy", name: "v" })).toEqual({
      apiVersion: "policies.kyverno.io/v1",
      kind: "ValidatingPolicy",
      name: "v",
    });
  });
});
