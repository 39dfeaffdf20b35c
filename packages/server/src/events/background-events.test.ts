import type { EventRecord } from "@kyverno-ts/kube";
import { describe, expect, it } from "vitest";
import { createBackgroundEvents, type ProcessedRequest } from "./background-events.js";
import type { EventReason } from "./policy-events.js";

const trigger = { apiVersion: "v1", kind: "Namespace", namespace: "", name: "team-a", uid: "ns-uid" };
const generate: ProcessedRequest = {
  requestType: "generate",
  policy: "add-quota",
  rule: "quota",
  resource: trigger,
};
const quota = {
  apiVersion: "v1",
  kind: "ResourceQuota",
  metadata: { name: "default", namespace: "team-a", uid: "q-uid" },
};

function setup(options: { success: boolean; omit?: EventReason[] }) {
  const events: EventRecord[] = [];
  const emitter = createBackgroundEvents({
    recorder: { record: (e) => events.push(e) },
    ...(options.omit ? { omit: options.omit } : {}),
    generateSuccessEvents: () => options.success,
    policyObject: (r) =>
      r.policy === "add-quota" ? { apiVersion: "kyverno.io/v1", metadata: { uid: "p-uid" } } : undefined,
  });
  return { events, emitter };
}

describe("background controller events", () => {
  it("a failure: PolicyError on the policy, the trigger related, from kyverno-generate, whatever generateSuccessEvents says", () => {
    const { events, emitter } = setup({ success: false });
    emitter.processed(generate, { state: "Failed", message: "ResourceQuota team-a/default: forbidden" });
    expect(events).toEqual([
      {
        reportingController: "kyverno-generate",
        regarding: { apiVersion: "kyverno.io/v1", kind: "ClusterPolicy", name: "add-quota", uid: "p-uid" },
        related: { apiVersion: "v1", kind: "Namespace", name: "team-a", uid: "ns-uid" },
        type: "Warning",
        reason: "PolicyError",
        action: "None",
        note: "policy add-quota/quota error: ResourceQuota team-a/default: forbidden",
      },
    ]);
  });

  it("success: PolicyApplied per generated resource only with generateSuccessEvents and PolicyApplied not omitted", () => {
    const off = setup({ success: false, omit: [] });
    off.emitter.processed(generate, { state: "Completed", generated: [quota] });
    expect(off.events).toEqual([]);
    const omitted = setup({ success: true });
    omitted.emitter.processed(generate, { state: "Completed", generated: [quota] });
    expect(omitted.events).toEqual([]);
    const on = setup({ success: true, omit: [] });
    on.emitter.processed(generate, { state: "Completed", generated: [quota] });
    on.emitter.processed(generate, { state: "Skip" });
    expect(on.events).toEqual([
      {
        reportingController: "kyverno-generate",
        regarding: { apiVersion: "kyverno.io/v1", kind: "ClusterPolicy", name: "add-quota", uid: "p-uid" },
        related: {
          apiVersion: "v1",
          kind: "ResourceQuota",
          name: "default",
          namespace: "team-a",
          uid: "q-uid",
        },
        type: "Normal",
        reason: "PolicyApplied",
        action: "Resource Generated",
        note: "resource generated",
      },
    ]);
  });

  it("mutate-existing reports as kyverno-mutate (resource mutated); namespaced and CEL policies are named by kind", () => {
    const { events, emitter } = setup({ success: true, omit: [] });
    const deployment = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "web", namespace: "team-a" },
    };
    emitter.processed(
      { requestType: "mutate", policy: "team-a/add-sec", rule: "sec", resource: trigger },
      { state: "Completed", generated: [deployment] },
    );
    emitter.processed(
      { requestType: "cel-generate", policy: "default-deny", rule: "", resource: trigger },
      { state: "Failed", message: "boom" },
    );
    emitter.processed(
      { requestType: "cel-mutate", policy: "team-a/refresh", rule: "refresh", resource: trigger },
      { state: "Completed", generated: [deployment] },
    );
    expect(events.map((e) => [e.reportingController, e.reason, e.action, e.regarding, e.note])).toEqual([
      [
        "kyverno-mutate",
        "PolicyApplied",
        "Resource Mutated",
        { apiVersion: "kyverno.io/v1", kind: "Policy", name: "add-sec", namespace: "team-a" },
        "resource mutated",
      ],
      [
        "kyverno-generate",
        "PolicyError",
        "None",
        { apiVersion: "policies.kyverno.io/v1", kind: "GeneratingPolicy", name: "default-deny" },
        "policy default-deny/ error: boom",
      ],
      [
        "kyverno-mutate",
        "PolicyApplied",
        "Resource Mutated",
        {
          apiVersion: "policies.kyverno.io/v1",
          kind: "NamespacedMutatingPolicy",
          name: "refresh",
          namespace: "team-a",
        },
        "resource mutated",
      ],
    ]);
  });

  it("omitting PolicyError drops failures", () => {
    const { events, emitter } = setup({ success: true, omit: ["PolicyError"] });
    emitter.processed(generate, { state: "Failed", message: "boom" });
    expect(events).toEqual([]);
  });
});
