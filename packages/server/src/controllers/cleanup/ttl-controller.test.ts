/**
 * `--ttlReconciliationInterval` drives the TTL controller's discovery: the kinds it watches for the
 * `cleanup.kyverno.io/ttl` label are found again every interval (a fake clock moves time), so a CRD
 * installed after the start is watched (and its labelled objects deleted) from the next round on, not
 * before, and a kind whose access was revoked is dropped at the next round.
 */
import type { KubeObject } from "@kyverno-ts/api";
import { createKubeClient, type KubeClient } from "@kyverno-ts/kube";
import { type Sandbox, startSandbox } from "@kyverno-ts/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../logger.js";
import { read, until } from "../../testing/cluster.js";
import { fakeClock } from "../../testing/fixtures.js";
import { createCleanupMetrics } from "./metrics.js";
import { createTtlController, type TtlController } from "./ttl-controller.js";

const WIDGET_CRD = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "widgets.example.com" },
  spec: {
    group: "example.com",
    names: { kind: "Widget", plural: "widgets", singular: "widget", listKind: "WidgetList" },
    scope: "Namespaced",
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
      },
    ],
  },
};

const INTERVAL_MS = 60_000;

describe("the TTL controller's reconciliation interval", () => {
  let sandbox: Sandbox;
  let client: KubeClient;
  let ttl: TtlController;
  const clock = fakeClock(0, new Date());
  const lead = new AbortController();
  /** Resources this controller may list, watch and delete; `rounds` counts discovery rounds. */
  const denied = new Set<string>();
  let rounds = 0;
  const watched = () => ttl.kinds().map((k) => k.kind);
  /** Lets pending I/O of a round that should not have started show up if it did. */
  const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

  beforeAll(async () => {
    sandbox = await startSandbox({});
    client = createKubeClient({ kubeconfigPath: sandbox.kubeconfigPath, qps: 0 });
    await client.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "apps" } });
    ttl = createTtlController({
      client,
      clock,
      logger: silentLogger(),
      metrics: createCleanupMetrics(),
      intervalMs: INTERVAL_MS,
      access: async (_group, resource, verb) => {
        if (resource === "configmaps" && verb === "list") rounds++;
        return !denied.has(resource);
      },
    });
    ttl.lead(lead.signal);
    await ttl.ready();
  }, 60_000);
  afterAll(async () => {
    lead.abort();
    await ttl?.stop();
    client?.close();
    await sandbox?.stop();
  }, 30_000);

  it("finds a CRD installed after the start only at the next interval, then deletes its labelled objects", async () => {
    expect(rounds).toBe(1);
    expect(watched()).toContain("ConfigMap");
    expect(watched()).not.toContain("Widget");
    const crd = await client.create(WIDGET_CRD as unknown as KubeObject);
    expect(crd.ok).toBe(true);
    await until(async () => (await client.resource("example.com/v1", "Widget")).ok, 10_000, "Widget served");
    const widget = await client.create({
      apiVersion: "example.com/v1",
      kind: "Widget",
      metadata: { name: "old", namespace: "apps", labels: { "cleanup.kyverno.io/ttl": "1s" } },
    } as KubeObject);
    expect(widget.ok).toBe(true);

    // Just before the interval: no new round, the Widget is neither watched nor deleted.
    clock.advance(INTERVAL_MS - 1);
    await settle();
    expect(rounds).toBe(1);
    expect(watched()).not.toContain("Widget");
    expect(
      await read(client, { apiVersion: "example.com/v1", kind: "Widget", namespace: "apps", name: "old" }),
    ).toBeDefined();

    // At the interval: discovery runs again, the Widget kind is watched and its expired object deleted.
    clock.advance(1);
    await until(() => watched().includes("Widget"), 10_000, "Widget watched");
    expect(rounds).toBe(2);
    await until(
      async () =>
        (await read(client, {
          apiVersion: "example.com/v1",
          kind: "Widget",
          namespace: "apps",
          name: "old",
        })) === undefined,
      10_000,
      "the expired Widget deleted",
    );
  }, 40_000);

  it("drops a kind whose access was revoked at the next interval, not before", async () => {
    await until(() => rounds === 2 && watched().includes("Widget"), 10_000, "second round done");
    denied.add("widgets");
    clock.advance(INTERVAL_MS - 1);
    await settle();
    expect(watched()).toContain("Widget");
    clock.advance(1);
    await until(() => !watched().includes("Widget"), 10_000, "Widget dropped");
    expect(rounds).toBe(3);
    expect(watched()).toContain("ConfigMap");
  }, 40_000);
});
