import type { JsonValue } from "@kyverno-ts/api";
import { createEngine } from "@kyverno-ts/engine";
import { describe, expect, it } from "vitest";
import { createPolicyCache } from "../../policycache/policy-cache.js";
import { policy } from "../../testing/fixtures.js";
import { policyWebhookNeeds, selectorsOf } from "./webhook-rules.js";

type Json = { [key: string]: JsonValue };

function needsOf(spec: Json, annotations?: Record<string, string>) {
  const cache = createPolicyCache({ engine: createEngine({}) });
  const loaded = policy({
    apiVersion: "kyverno.io/v1",
    kind: "ClusterPolicy",
    metadata: { name: "p", ...(annotations ? { annotations } : {}) },
    spec,
  });
  expect(cache.set(loaded).ready).toBe(true);
  return policyWebhookNeeds(cache.get("p") ?? expect.fail("not cached"));
}

const validate = { message: "m", pattern: { metadata: { name: "?*" } } };

describe("policyWebhookNeeds", () => {
  it("adds the autogen controllers of Pod rules, with the rule's operations", () => {
    const n = needsOf({
      rules: [
        { name: "r", match: { any: [{ resources: { kinds: ["Pod"], operations: ["CREATE"] } }] }, validate },
      ],
    });
    expect(n.validate).toEqual([
      { selector: "Pod", operations: ["CREATE"] },
      ...["DaemonSet", "Deployment", "Job", "ReplicaSet", "ReplicationController", "StatefulSet"].map(
        (selector) => ({
          selector,
          operations: ["CREATE"],
        }),
      ),
      { selector: "CronJob", operations: ["CREATE"] },
    ]);
    expect(n.mutate).toEqual([]);
  });

  it("follows the autogen annotation (a list, or none)", () => {
    const spec = { rules: [{ name: "r", match: { any: [{ resources: { kinds: ["Pod"] } }] }, validate }] };
    const listed = needsOf(spec, { "pod-policies.kyverno.io/autogen-controllers": "Deployment,StatefulSet" });
    expect(selectorsOf([listed])).toEqual(["Deployment", "Pod", "StatefulSet"]);
    const none = needsOf(spec, { "pod-policies.kyverno.io/autogen-controllers": "none" });
    expect(selectorsOf([none])).toEqual(["Pod"]);
  });

  it("uses upstream's default operations and splits validate from mutate (mutate-existing triggers on the validating one)", () => {
    const n = needsOf({
      failurePolicy: "Ignore",
      webhookTimeoutSeconds: 4,
      background: false,
      rules: [
        {
          name: "v",
          match: {
            any: [
              { resources: { kinds: ["ConfigMap"] } },
              { resources: { kinds: ["*"], namespaces: ["a"] } },
            ],
          },
          validate,
        },
        {
          name: "m",
          match: { any: [{ resources: { kinds: ["Secret"] } }] },
          mutate: { patchStrategicMerge: { metadata: { labels: { x: "y" } } } },
        },
        {
          name: "existing",
          match: { any: [{ resources: { kinds: ["Namespace"] } }] },
          mutate: {
            targets: [{ apiVersion: "v1", kind: "ConfigMap" }],
            patchStrategicMerge: { metadata: { labels: { x: "y" } } },
          },
        },
      ],
    });
    expect(n.failurePolicy).toBe("Ignore");
    expect(n.timeoutSeconds).toBe(4);
    expect(n.validate).toEqual([
      { selector: "ConfigMap", operations: ["CREATE", "UPDATE", "DELETE", "CONNECT"] },
      { selector: "*", operations: ["CREATE", "UPDATE", "DELETE", "CONNECT"] },
      // The admission controller turns them into UpdateRequests for the background controller.
      { selector: "Namespace", operations: ["CREATE", "UPDATE", "DELETE"] },
    ]);
    expect(n.mutate).toEqual([{ selector: "Secret", operations: ["CREATE", "UPDATE"] }]);
  });

  it("needs nothing for a policy with admission disabled", () => {
    const n = needsOf({
      admission: false,
      background: true,
      rules: [{ name: "r", match: { any: [{ resources: { kinds: ["ConfigMap"] } }] }, validate }],
    });
    expect([n.validate, n.mutate]).toEqual([[], []]);
  });
});
