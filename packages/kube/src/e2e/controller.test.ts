/** The parts together, as a controller of the server uses them: informer → queue → client, leader-gated. */
import type { KubeObject } from "@kyverno-ts/api";
import { type Sandbox, startSandbox } from "@kyverno-ts/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createInformer,
  createKubeClient,
  createLeaderElector,
  createWorkQueue,
  isNotFound,
  type KubeClient,
} from "../index.js";
import type { QueueEvent } from "../queue/work-queue.js";
import { until } from "../testing/sandbox.js";

describe("a mirror controller built from the package's parts", () => {
  let sandbox: Sandbox;
  let client: KubeClient;

  beforeAll(async () => {
    sandbox = await startSandbox();
    client = createKubeClient({ kubeconfigPath: sandbox.kubeconfigPath, qps: 50, burst: 20 });
  });
  afterAll(async () => {
    client?.close();
    await sandbox?.stop();
  });

  it("reconciles source ConfigMaps into mirrors while leading, and shuts down cleanly", async () => {
    const metrics: Array<[string, QueueEvent<string>]> = [];
    const informer = createInformer<KubeObject>({
      client,
      apiVersion: "v1",
      kind: "ConfigMap",
      namespace: "default",
      labelSelector: "mirror=source",
    });
    const queue = createWorkQueue<string>({
      name: "mirror-controller",
      onReconcile: (e) => metrics.push(["reconcile", e]),
      onRequeue: (e) => metrics.push(["requeue", e]),
    });
    const enqueue = (o: KubeObject) => queue.add(o.metadata?.name ?? "");
    informer.on("add", enqueue);
    informer.on("update", enqueue);
    informer.on("delete", enqueue);
    let failOnce = true;

    const elector = createLeaderElector({
      client,
      namespace: "default",
      name: "mirror-controller",
      identity: "replica-1",
      onStartedLeading: () => {
        void queue.process(2, async (name) => {
          if (name === "flaky" && failOnce) {
            failOnce = false;
            return { error: new Error("transient") };
          }
          const ref = { apiVersion: "v1", kind: "ConfigMap", namespace: "default", name: `${name}-mirror` };
          const source = informer.get("default", name);
          if (source === undefined) {
            const deleted = await client.delete(ref);
            return deleted.ok || isNotFound(deleted) ? undefined : { error: deleted };
          }
          const applied = await client.apply(
            {
              apiVersion: "v1",
              kind: "ConfigMap",
              metadata: { name: ref.name, namespace: "default" },
              data: source.data ?? {},
            },
            { fieldManager: "mirror-controller", force: true },
          );
          return applied.ok ? undefined : { error: applied };
        });
      },
    });

    const source = (name: string, data: Record<string, string>) => ({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name, namespace: "default", labels: { mirror: "source" } },
      data,
    });
    await client.create(source("existing", { a: "1" }));
    await informer.start();
    elector.start();
    await until(() => elector.isLeader(), 3000, "leadership");
    await client.create(source("flaky", { b: "2" }));
    await client.patch(
      { apiVersion: "v1", kind: "ConfigMap", namespace: "default", name: "existing" },
      { type: "merge", patch: { data: { a: "changed" } } },
    );

    const mirrors = async () => {
      const listed = await client.list({ apiVersion: "v1", kind: "ConfigMap", namespace: "default" });
      if (!listed.ok) throw new Error(listed.message);
      return Object.fromEntries(
        listed.value.items
          .filter((o) => o.metadata?.name?.endsWith("-mirror"))
          .map((o) => [o.metadata?.name, o.data]),
      );
    };
    let seen: Record<string, unknown> = {};
    const settle = async (expected: Record<string, unknown>) => {
      const deadline = Date.now() + 5000;
      while (Date.now() < deadline) {
        seen = await mirrors();
        if (JSON.stringify(seen) === JSON.stringify(expected)) return;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    await settle({ "existing-mirror": { a: "changed" }, "flaky-mirror": { b: "2" } });
    expect(seen).toEqual({ "existing-mirror": { a: "changed" }, "flaky-mirror": { b: "2" } });
    await client.delete({ apiVersion: "v1", kind: "ConfigMap", namespace: "default", name: "existing" });
    await settle({ "flaky-mirror": { b: "2" } });
    expect(seen).toEqual({ "flaky-mirror": { b: "2" } });
    expect(metrics.filter(([kind]) => kind === "requeue").map(([, e]) => e.key)).toEqual(["flaky"]);

    // graceful shutdown: stop leading (hand the lease back), drain the queue, stop watching
    await elector.release();
    await queue.shutdown();
    await informer.stop();
    const lease = await client.get<KubeObject>({
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      namespace: "default",
      name: "mirror-controller",
    });
    expect(lease.ok && lease.value.spec).toMatchObject({ holderIdentity: "" });
  });
});
