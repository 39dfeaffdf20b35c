import type { JsonObject, KubeObject } from "@kyverno-ts/api";
import { createKubeClient } from "@kyverno-ts/kube";
import { describe, expect, it } from "vitest";
import { startSandbox } from "../sandbox.js";
import { withoutDropped } from "./patch.js";

describe("server-side apply: fields a manager stops applying", () => {
  it("are removed while they hold the applied value; what others set or changed stays", () => {
    const previous = { spec: { a: 1, b: { c: 2 }, list: [1, 2], gone: { x: 1 } } };
    const live = { spec: { a: 9, b: { c: 2, d: 3 }, list: [1, 2], gone: { x: 1 }, other: 5 } };
    const next = { spec: { list: [1] } };
    expect(withoutDropped(live, previous, next)).toEqual({ spec: { a: 9, b: { d: 3 }, other: 5 } });
  });

  it("keeps a list someone else changed, for the merge to combine", () => {
    const live = { spec: { list: [1, 2, 3] } };
    expect(withoutDropped(live, { spec: { list: [1, 2] } }, { spec: { list: [1] } })).toEqual(live);
  });

  it("applies through the API as Helm 4 does: a second apply drops labels and fields it no longer sets", async () => {
    const sandbox = await startSandbox({ admission: false });
    const client = createKubeClient({ kubeconfigPath: sandbox.kubeconfigPath, qps: 0 });
    try {
      const deployment = (labels: Record<string, string>, extra: JsonObject): KubeObject => ({
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: "web", namespace: "default", labels },
        spec: {
          selector: { matchLabels: { app: "web" } },
          template: {
            metadata: { labels: { app: "web" } },
            spec: { containers: [{ name: "web", image: "nginx:1.27" }], ...extra },
          },
        },
      });
      const spread = {
        topologySpreadConstraints: [
          { maxSkew: 1, topologyKey: "kubernetes.io/hostname", whenUnsatisfiable: "DoNotSchedule" },
        ],
      };
      expect(
        (await client.apply(deployment({ app: "web", tier: "front" }, spread), { fieldManager: "helm" })).ok,
      ).toBe(true);
      const patched = await client.patch(
        { apiVersion: "apps/v1", kind: "Deployment", namespace: "default", name: "web" },
        { type: "merge", patch: { metadata: { labels: { owner: "someone-else" } } } },
      );
      expect(patched.ok).toBe(true);
      const second = await client.apply(deployment({ app: "web" }, {}), { fieldManager: "helm" });
      if (!second.ok) throw new Error(second.message);
      expect(second.value.metadata?.labels).toEqual({ app: "web", owner: "someone-else" });
      const podSpec = (second.value.spec as { template: { spec: JsonObject } }).template.spec;
      expect(podSpec.topologySpreadConstraints).toBeUndefined();
      expect(podSpec.containers).toEqual([{ name: "web", image: "nginx:1.27" }]);
    } finally {
      client.close();
      await sandbox.stop();
    }
  });
});
