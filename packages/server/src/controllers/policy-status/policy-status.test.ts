import type { KubeObject } from "@kyverno-ts/api";
import { createEngine } from "@kyverno-ts/engine";
import { describe, expect, it } from "vitest";
import { podValidatePolicy } from "../../testing/fixtures.js";
import { desiredStatus } from "./policy-status.js";

const now = new Date("2026-03-01T10:00:00Z");

describe("desiredStatus", () => {
  const policy = podValidatePolicy({ name: "p" });
  const compiled = createEngine({}).compile(policy);
  if (!compiled.ok) throw new Error("does not compile");
  const object = { ...policy, metadata: { ...policy.metadata, generation: 3 } } as unknown as KubeObject;

  it("reports readiness as a Ready condition, with autogen rules and rule counts", () => {
    const status = desiredStatus({
      object,
      readiness: { ready: true, reason: "Succeeded", message: "Ready" },
      compiled: compiled.policy,
      now,
    });
    expect(status).toMatchObject({
      ready: true,
      conditions: [
        {
          type: "Ready",
          status: "True",
          reason: "Succeeded",
          message: "Ready",
          lastTransitionTime: "2026-03-01T10:00:00.000Z",
          observedGeneration: 3,
        },
      ],
      rulecount: { validate: 3, generate: 0, mutate: 0, verifyimages: 0 },
      validatingadmissionpolicy: { generated: false, message: "" },
    });
    const autogen = (status.autogen as { rules: Array<{ name: string; match: unknown }> }).rules;
    expect(autogen.map((r) => r.name)).toEqual([
      "autogen-check-privileged",
      "autogen-cronjob-check-privileged",
    ]);
    // Upstream writes the controller kinds with their group and version.
    expect(autogen[0]?.match).toEqual({
      any: [
        {
          resources: {
            kinds: [
              "apps/v1/DaemonSet",
              "apps/v1/Deployment",
              "batch/v1/Job",
              "apps/v1/StatefulSet",
              "apps/v1/ReplicaSet",
              "v1/ReplicationController",
            ],
          },
        },
      ],
    });
    expect(autogen[1]?.match).toEqual({ any: [{ resources: { kinds: ["batch/v1/CronJob"] } }] });
  });

  it("keeps lastTransitionTime while the condition holds, and moves it when it changes", () => {
    const earlier = {
      ...object,
      status: {
        conditions: [
          { type: "Ready", status: "True", reason: "Succeeded", lastTransitionTime: "2026-01-01T00:00:00Z" },
        ],
      },
    } as KubeObject;
    const same = desiredStatus({
      object: earlier,
      readiness: { ready: true, reason: "Succeeded", message: "Ready" },
      compiled: compiled.policy,
      now,
    });
    expect((same.conditions as Array<{ lastTransitionTime: string }>)[0]?.lastTransitionTime).toBe(
      "2026-01-01T00:00:00Z",
    );
    const failed = desiredStatus({
      object: earlier,
      readiness: { ready: false, reason: "Failed", message: "spec.rules[0]: broken" },
      compiled: undefined,
      now,
    });
    expect(failed).toMatchObject({
      ready: false,
      conditions: [
        {
          status: "False",
          reason: "Failed",
          message: "spec.rules[0]: broken",
          lastTransitionTime: now.toISOString(),
        },
      ],
      autogen: {},
      rulecount: { validate: 1 },
    });
  });
});
