import type { KubeObject } from "@kyverno-ts/api";
import type { KubeClient } from "@kyverno-ts/kube";
import { describe, expect, it } from "vitest";
import { silentLogger } from "../../logger.js";
import { recordingLogger } from "../../testing/fixtures.js";
import { type UpdateRequestIntent, updateRequestName } from "./update-request.js";
import { createUpdateRequestIntake } from "./ur-intake.js";

/** A client whose creates land in a map (AlreadyExists for a taken name) after a macrotask. */
function fakeClient() {
  const stored = new Map<string, KubeObject>();
  let creates = 0;
  const client = {
    async create(o: KubeObject) {
      creates++;
      await new Promise((r) => setTimeout(r, 1));
      const name = o.metadata?.name ?? "";
      if (stored.has(name))
        return { ok: false, status: 409, reason: "AlreadyExists", message: `${name} already exists` };
      stored.set(name, o);
      return { ok: true, status: 201, value: o };
    },
    async get(ref: { name: string }) {
      const o = stored.get(ref.name);
      return o
        ? { ok: true, status: 200, value: o }
        : { ok: false, status: 404, reason: "NotFound", message: "" };
    },
    async update(o: KubeObject) {
      stored.set(o.metadata?.name ?? "", o);
      return { ok: true, status: 200, value: o };
    },
  };
  return { client: client as unknown as KubeClient, stored, creates: () => creates };
}

const intent = (trigger: number, policy = "p"): UpdateRequestIntent => ({
  requestType: "generate",
  policy,
  rules: ["r"],
  deleteDownstream: false,
  trigger: {
    apiVersion: "v1",
    kind: "Namespace",
    namespace: "",
    name: `ns-${trigger}`,
    uid: `uid-${trigger}`,
  },
});

describe("UpdateRequest intake", () => {
  it("creates one UpdateRequest per policy and trigger however many requests touch it", async () => {
    const { client, stored } = fakeClient();
    const intake = createUpdateRequestIntake({ client, namespace: "kyverno", logger: silentLogger() });
    // 50 updates of each of 20 Namespaces, all pending at once.
    for (let round = 0; round < 50; round++) for (let t = 0; t < 20; t++) intake.offer(() => [intent(t)]);
    await intake.flush();
    expect(stored.size).toBe(20);
    expect([...stored.keys()].sort()).toEqual(
      Array.from({ length: 20 }, (_, t) => updateRequestName(intent(t))).sort(),
    );
    const stats = intake.stats();
    expect(stats.created).toBe(20);
    expect(stats.dropped).toBe(0);
    expect(stats.created + stats.deduplicated).toBe(1000);
    // Each is recorded Pending once created (the status subresource ignores a status on create).
    expect([...stored.values()].map((o) => o.status)).toEqual(
      Array.from({ length: 20 }, () => ({ state: "Pending" })),
    );
  });

  it("drops, and counts, what exceeds its capacity instead of queueing without limit", async () => {
    const { client, stored } = fakeClient();
    const dropped: number[] = [];
    const logger = recordingLogger();
    const intake = createUpdateRequestIntake({
      client,
      namespace: "kyverno",
      logger,
      capacity: 100,
      concurrency: 2,
      onDrop: (n) => dropped.push(n),
    });
    for (let t = 0; t < 1000; t++) intake.offer(() => [intent(t)]);
    await intake.flush();
    const stats = intake.stats();
    expect(stats.dropped).toBeGreaterThan(0);
    expect(dropped.length).toBe(stats.dropped);
    expect(stored.size).toBe(stats.created);
    expect(stats.created + stats.dropped).toBe(1000);
    // Logged, not silently lost (the first drop, then every 1,000th).
    expect(logger.lines.filter((l) => l.level === "warn").map((l) => l.message)).toEqual([
      "UpdateRequest intake full: background work for admitted requests was dropped",
    ]);
  });

  it("sets an UpdateRequest that already ran back to Pending instead of creating another", async () => {
    const { client, stored } = fakeClient();
    const intake = createUpdateRequestIntake({ client, namespace: "kyverno", logger: silentLogger() });
    intake.add(intent(1));
    await intake.flush();
    const name = updateRequestName(intent(1));
    const ur = stored.get(name) as KubeObject;
    stored.set(name, { ...ur, status: { state: "Failed", retryCount: 2 } });
    intake.add(intent(1));
    await intake.flush();
    expect(stored.size).toBe(1);
    expect(stored.get(name)?.status).toEqual({ state: "Pending", retryCount: 0 });
    // A Skip one, kept as upstream keeps it, runs again for the next request on its trigger.
    stored.set(name, { ...ur, status: { state: "Skip", message: "policy p not found" } });
    intake.add(intent(1));
    await intake.flush();
    expect(stored.size).toBe(1);
    expect(stored.get(name)?.status).toEqual({ state: "Pending", retryCount: 0 });
  });
});
