/** Kubernetes Events of the CEL webhooks: ValidatingPolicy violations and blocks, MutatingPolicy applied. */
import { type CelPolicy, type JsonValue, loadCelPolicy } from "@kyverno-ts/api";
import { createCelEngine } from "@kyverno-ts/engine";
import type { EventRecord } from "@kyverno-ts/kube";
import { describe, expect, it } from "vitest";
import { createPolicyEvents, policyRefFrom } from "../../events/policy-events.js";
import { celPolicyKey, createCelPolicyStore } from "../../policycache/cel-policy-store.js";
import { fakeClock, pod, recordingLogger, review } from "../../testing/fixtures.js";
import { type CelWebhookRoute, createCelAdmissionHandler } from "./cel-handler.js";
import { defaultKyvernoConfig } from "./filters.js";

const podRules = {
  resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"] }],
};

function celPolicy(doc: Record<string, unknown>): CelPolicy {
  const loaded = loadCelPolicy(doc as JsonValue, { file: "test" });
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
  return loaded.value;
}

const requireTeam = (name: string, actions: string[]): CelPolicy =>
  celPolicy({
    apiVersion: "policies.kyverno.io/v1",
    kind: "ValidatingPolicy",
    metadata: { name, uid: `${name}-uid` },
    spec: {
      matchConstraints: podRules,
      validationActions: actions,
      validations: [
        {
          expression: "has(object.metadata.labels) && 'team' in object.metadata.labels",
          message: "team label required",
        },
      ],
    },
  });

const addOwner = celPolicy({
  apiVersion: "policies.kyverno.io/v1",
  kind: "MutatingPolicy",
  metadata: { name: "add-owner", uid: "mpol-uid" },
  spec: {
    matchConstraints: podRules,
    mutations: [
      {
        patchType: "ApplyConfiguration",
        applyConfiguration: {
          expression: "Object{metadata: Object.metadata{labels: {'owner': 'platform'}}}",
        },
      },
    ],
  },
});

function setup(omit: Array<"PolicyApplied" | "PolicySkipped">, ...policies: CelPolicy[]) {
  const clock = fakeClock();
  const engine = createCelEngine({ clock: clock });
  const store = createCelPolicyStore({ engine });
  for (const p of policies) store.set(p);
  const events: EventRecord[] = [];
  const handler = createCelAdmissionHandler({
    engine,
    store,
    clock,
    logger: recordingLogger(),
    config: defaultKyvernoConfig,
    events: createPolicyEvents({
      recorder: { record: (e) => events.push(e) },
      omit,
      policyRef: policyRefFrom((p) => store.get(celPolicyKey(p))?.policy),
    }),
  });
  const call = (route: CelWebhookRoute, dryRun = false) => {
    const reply = handler.handleBody(
      route,
      JSON.stringify(review({ object: pod({ name: "web", namespace: "shop" }), dryRun })),
    );
    return (reply.body as { response: { allowed: boolean } }).response;
  };
  return { call, events };
}

const VPOL = { apiVersion: "policies.kyverno.io/v1", kind: "ValidatingPolicy" };

describe("Events of the CEL webhooks", () => {
  it("an audited ValidatingPolicy violation: PolicyViolation on the policy and on the Pod", () => {
    const { call, events } = setup(
      ["PolicyApplied", "PolicySkipped"],
      requireTeam("require-team", ["Audit"]),
    );
    expect(call({ type: "validate", failurePolicy: "Fail" }).allowed).toBe(true);
    expect(events.map((e) => [e.reportingController, e.reason, e.action, e.regarding, e.related])).toEqual([
      [
        "kyverno-admission",
        "PolicyViolation",
        "Resource Passed",
        { ...VPOL, name: "require-team", uid: "require-team-uid" },
        { apiVersion: "v1", kind: "Pod", name: "web", namespace: "shop" },
      ],
      [
        "kyverno-admission",
        "PolicyViolation",
        "Resource Passed",
        { apiVersion: "v1", kind: "Pod", name: "web", namespace: "shop" },
        { ...VPOL, name: "require-team", uid: "require-team-uid" },
      ],
    ]);
    expect(events[0]?.note).toMatch(/^Pod shop\/web: \[.*\] fail; team label required$/);
  });

  it("a Deny ValidatingPolicy that blocks: the policy's Event only, Resource Blocked; no Event for a dry run admitted", () => {
    const { call, events } = setup(["PolicyApplied", "PolicySkipped"], requireTeam("require-team", ["Deny"]));
    expect(call({ type: "validate", failurePolicy: "Fail" }).allowed).toBe(false);
    expect(events.map((e) => [e.regarding.kind, e.action, e.note.includes("(blocked)")])).toEqual([
      ["ValidatingPolicy", "Resource Blocked", true],
    ]);
    const audit = setup(["PolicyApplied", "PolicySkipped"], requireTeam("audit", ["Audit"]));
    audit.call({ type: "validate", failurePolicy: "Fail" }, true);
    expect(audit.events).toEqual([]);
  });

  it("a MutatingPolicy that mutated: PolicyApplied on it once PolicyApplied is not omitted", () => {
    const omitted = setup(["PolicyApplied", "PolicySkipped"], addOwner);
    expect(omitted.call({ type: "mutate", failurePolicy: "Fail" }).allowed).toBe(true);
    expect(omitted.events).toEqual([]);
    const { call, events } = setup([], addOwner);
    call({ type: "mutate", failurePolicy: "Fail" });
    expect(events.map((e) => [e.type, e.reason, e.regarding, e.note])).toEqual([
      [
        "Normal",
        "PolicyApplied",
        { apiVersion: "policies.kyverno.io/v1", kind: "MutatingPolicy", name: "add-owner", uid: "mpol-uid" },
        "Pod shop/web: pass",
      ],
    ]);
  });
});
