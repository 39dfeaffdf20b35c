import type { KubeClient } from "@kyverno-ts/kube";
import { describe, expect, it } from "vitest";
import type { Pod } from "../pods/pod-types.js";
import { reconcileDeployment } from "./deployments.js";
import type { Deployment, ReplicaSet } from "./objects.js";
import { templateHash } from "./objects.js";

/** A client that records ReplicaSet scaling and creation, and answers everything else with success. */
function recordingClient(sets: ReplicaSet[]) {
  const scaled: Array<{ name: string; replicas: number }> = [];
  const client = {
    async create(object: ReplicaSet) {
      const created = { ...object, metadata: { ...object.metadata, uid: `uid-${object.metadata.name}` } };
      sets.push(created);
      return { ok: true, status: 201, value: created };
    },
    async patch(ref: { kind: string; name: string }, patch: { patch: { spec?: { replicas?: number } } }) {
      const replicas = patch.patch.spec?.replicas;
      if (ref.kind === "ReplicaSet" && replicas !== undefined) scaled.push({ name: ref.name, replicas });
      return { ok: true, status: 200, value: {} };
    },
    async delete() {
      return { ok: true, status: 200, value: {} };
    },
  };
  return { client: client as unknown as KubeClient, scaled };
}

const template = (image: string) => ({
  metadata: { labels: { app: "web" } },
  spec: { containers: [{ name: "c", image }] },
});

function deployment(image: string, replicas: number): Deployment {
  return {
    metadata: { name: "web", namespace: "ns", uid: "d1", generation: 2 },
    spec: {
      replicas,
      selector: { matchLabels: { app: "web" } },
      template: template(image),
      strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: 1, maxUnavailable: "40%" } },
    },
  };
}

function replicaSet(name: string, image: string, replicas: number, revision: number): ReplicaSet {
  return {
    metadata: {
      name,
      namespace: "ns",
      uid: `uid-${name}`,
      labels: { app: "web", "pod-template-hash": templateHash(template(image)) },
      annotations: { "deployment.kubernetes.io/revision": String(revision) },
      ownerReferences: [
        { apiVersion: "apps/v1", kind: "Deployment", name: "web", uid: "d1", controller: true },
      ],
    },
    spec: { replicas, selector: { matchLabels: { app: "web" } }, template: template(image) },
  };
}

function readyPods(rs: ReplicaSet, count: number): Pod[] {
  return Array.from({ length: count }, (_, i) => ({
    metadata: {
      name: `${rs.metadata.name}-${i}`,
      namespace: "ns",
      uid: `${rs.metadata.name}-${i}`,
      ownerReferences: [
        {
          apiVersion: "apps/v1",
          kind: "ReplicaSet",
          name: rs.metadata.name,
          uid: rs.metadata.uid ?? "",
          controller: true,
        },
      ],
    },
    spec: { containers: [] },
    status: { phase: "Running", conditions: [{ type: "Ready", status: "True" }] },
  }));
}

describe("the Deployment controller's rolling update", () => {
  it("surges one new Pod and removes no old one while only the old replicas are available (maxUnavailable 40% of 2 = 0)", async () => {
    const old = replicaSet("web-old", "app:1", 2, 1);
    const sets = [old];
    const { client, scaled } = recordingClient(sets);
    await reconcileDeployment(client, deployment("app:2", 2), sets, readyPods(old, 2));
    const created = sets.find((rs) => rs !== old);
    expect(created?.metadata.name).toBe(`web-${templateHash(template("app:2"))}`);
    expect(created?.metadata.annotations?.["deployment.kubernetes.io/revision"]).toBe("2");
    expect(scaled).toEqual([{ name: created?.metadata.name, replicas: 1 }]);
  });

  it("scales the old ReplicaSet down by one once a new Pod is ready, and the new one up within the surge", async () => {
    const old = replicaSet("web-old", "app:1", 2, 1);
    const fresh = replicaSet(`web-${templateHash(template("app:2"))}`, "app:2", 1, 2);
    const sets = [old, fresh];
    const { client, scaled } = recordingClient(sets);
    await reconcileDeployment(client, deployment("app:2", 2), sets, [
      ...readyPods(old, 2),
      ...readyPods(fresh, 1),
    ]);
    expect(scaled).toEqual([{ name: "web-old", replicas: 1 }]);
    // The next pass: the freed surge goes to the new ReplicaSet.
    const next: Array<{ name: string; replicas: number }> = [];
    const again = recordingClient(sets);
    await reconcileDeployment(again.client, deployment("app:2", 2), sets, [
      ...readyPods(old, 1),
      ...readyPods(fresh, 1),
    ]);
    next.push(...again.scaled);
    expect(next).toEqual([{ name: fresh.metadata.name, replicas: 2 }]);
  });

  it("reuses the ReplicaSet of an older template on rollback and makes it the newest revision", async () => {
    const v1 = replicaSet(`web-${templateHash(template("app:1"))}`, "app:1", 0, 1);
    const v2 = replicaSet(`web-${templateHash(template("app:2"))}`, "app:2", 2, 2);
    const sets = [v1, v2];
    const { client, scaled } = recordingClient(sets);
    await reconcileDeployment(client, deployment("app:1", 2), sets, readyPods(v2, 2));
    expect(sets).toHaveLength(2);
    expect(scaled[0]).toEqual({ name: v1.metadata.name, replicas: 0 });
    expect(scaled).toContainEqual({ name: v1.metadata.name, replicas: 1 });
  });
});
