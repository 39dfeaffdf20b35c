import { KubeConfig } from "@kubernetes/client-node";
import type { KubeObject } from "@kyverno-ts/api";
import { type Sandbox, startSandbox } from "@kyverno-ts/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryLog, WIDGET_CRD } from "../testing/sandbox.js";
import { createKubeClient, type KubeClient } from "./client.js";
import type { ApiResult, WatchEvent } from "./types.js";

const configMap = (name: string, data: Record<string, string> = {}, labels: Record<string, string> = {}) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace: "default", labels },
  data,
});

const value = <T>(result: ApiResult<T>): T => {
  if (!result.ok)
    throw new Error(`expected success, got ${result.status} ${result.reason}: ${result.message}`);
  return result.value;
};

describe("KubeClient against the sandbox", () => {
  let sandbox: Sandbox;
  let client: KubeClient;
  const log = queryLog();

  beforeAll(async () => {
    sandbox = await startSandbox({ crds: [WIDGET_CRD] });
    client = createKubeClient({
      kubeconfigPath: sandbox.kubeconfigPath,
      qps: 1000,
      burst: 1000,
      onQuery: log.onQuery,
    });
  });
  afterAll(async () => {
    client?.close();
    await sandbox?.stop();
  });

  it("creates, reads, updates and deletes, with 404/409 as typed results", async () => {
    const created = value(await client.create<KubeObject>(configMap("crud", { a: "1" })));
    expect(created.metadata?.resourceVersion).toMatch(/^\d+$/);
    const ref = { apiVersion: "v1", kind: "ConfigMap", namespace: "default", name: "crud" };
    const read = value(await client.get<KubeObject>(ref));
    expect(read.data).toEqual({ a: "1" });
    expect(read.metadata?.creationTimestamp).toEqual(expect.any(String)); // wire JSON, not Date objects

    const updated = value(await client.update({ ...read, data: { a: "2" } }));
    expect(updated.data).toEqual({ a: "2" });
    const stale = await client.update({ ...read, data: { a: "3" } });
    expect(stale).toMatchObject({ ok: false, status: 409, reason: "Conflict" });
    const duplicate = await client.create(configMap("crud"));
    expect(duplicate).toMatchObject({ ok: false, status: 409, reason: "AlreadyExists" });

    value(await client.delete(ref));
    const gone = await client.get(ref);
    expect(gone).toEqual({
      ok: false,
      status: 404,
      reason: "NotFound",
      message: 'configmaps "crud" not found',
      details: { name: "crud", kind: "configmaps" },
    });
    expect(await client.delete(ref)).toMatchObject({ ok: false, status: 404, reason: "NotFound" });
  });

  it("patches with merge, JSON and strategic merge patches", async () => {
    value(await client.create(configMap("patched", { a: "1", b: "2" })));
    const ref = { apiVersion: "v1", kind: "ConfigMap", namespace: "default", name: "patched" };
    const merged = value(
      await client.patch<KubeObject>(ref, { type: "merge", patch: { data: { b: null, c: "3" } } }),
    );
    expect(merged.data).toEqual({ a: "1", c: "3" });
    const jsonPatched = value(
      await client.patch<KubeObject>(ref, {
        type: "json",
        patch: [
          { op: "test", path: "/data/a", value: "1" },
          { op: "replace", path: "/data/a", value: "10" },
        ],
      }),
    );
    expect(jsonPatched.data).toEqual({ a: "10", c: "3" });
    const failedTest = await client.patch(ref, {
      type: "json",
      patch: [{ op: "test", path: "/data/a", value: "x" }],
    });
    expect(failedTest).toMatchObject({ ok: false });
    expect(failedTest.status).toBeGreaterThanOrEqual(400);

    const deployment = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "web", namespace: "default" },
      spec: {
        selector: { matchLabels: { app: "web" } },
        template: {
          metadata: { labels: { app: "web" } },
          spec: {
            containers: [
              { name: "a", image: "nginx:1" },
              { name: "b", image: "busybox" },
            ],
          },
        },
      },
    };
    value(await client.create(deployment));
    const deploymentRef = { apiVersion: "apps/v1", kind: "Deployment", namespace: "default", name: "web" };
    const strategic = value(
      await client.patch<KubeObject>(deploymentRef, {
        type: "strategic",
        patch: { spec: { template: { spec: { containers: [{ name: "a", image: "nginx:2" }] } } } },
      }),
    );
    // strategic merge merges the containers list by name; a merge patch would have replaced it
    expect(strategic).toMatchObject({
      spec: {
        template: {
          spec: {
            containers: [
              { name: "a", image: "nginx:2" },
              { name: "b", image: "busybox" },
            ],
          },
        },
      },
    });
  });

  it("applies server-side and honours dryRun", async () => {
    const applied = value(
      await client.apply(configMap("applied", { x: "1" }), { fieldManager: "kyverno-ts-test", force: true }),
    );
    expect(applied.data).toEqual({ x: "1" });
    const again = value(
      await client.apply(configMap("applied", { x: "2" }), { fieldManager: "kyverno-ts-test" }),
    );
    expect(again.data).toEqual({ x: "2" });

    const dry = value(await client.create(configMap("dry-run"), { dryRun: true }));
    expect(dry.metadata?.name).toBe("dry-run");
    expect(
      await client.get({ apiVersion: "v1", kind: "ConfigMap", namespace: "default", name: "dry-run" }),
    ).toMatchObject({ ok: false, status: 404 });
  });

  it("lists with selectors and pages, filling in apiVersion and kind", async () => {
    for (let i = 0; i < 5; i++) value(await client.create(configMap(`page-${i}`, {}, { set: "paging" })));
    const all = value(
      await client.list({ apiVersion: "v1", kind: "ConfigMap", labelSelector: "set=paging" }),
    );
    expect(all.items.map((i) => i.metadata?.name).sort()).toEqual([
      "page-0",
      "page-1",
      "page-2",
      "page-3",
      "page-4",
    ]);
    expect(all.items.every((i) => i.apiVersion === "v1" && i.kind === "ConfigMap")).toBe(true);
    expect(all.metadata.resourceVersion).toMatch(/^\d+$/);

    const first = value(
      await client.list({
        apiVersion: "v1",
        kind: "ConfigMap",
        namespace: "default",
        labelSelector: "set=paging",
        limit: 2,
      }),
    );
    expect(first.items).toHaveLength(2);
    expect(first.metadata.continue).toEqual(expect.any(String));
    const second = value(
      await client.list({
        apiVersion: "v1",
        kind: "ConfigMap",
        namespace: "default",
        labelSelector: "set=paging",
        limit: 10,
        continue: first.metadata.continue ?? "",
      }),
    );
    expect(second.items).toHaveLength(3);
    const fields = value(
      await client.list({ apiVersion: "v1", kind: "ConfigMap", fieldSelector: "metadata.name=page-3" }),
    );
    expect(fields.items.map((i) => i.metadata?.name)).toEqual(["page-3"]);
  });

  it("handles cluster-scoped kinds, custom resources and status subresources", async () => {
    value(await client.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "team-a" } }));
    const ns = value(await client.get({ apiVersion: "v1", kind: "Namespace", name: "team-a" }));
    expect(ns.metadata?.name).toBe("team-a");

    const widget = {
      apiVersion: "example.kyverno-ts.io/v1",
      kind: "Widget",
      metadata: { name: "w1", namespace: "team-a" },
      spec: { size: 3 },
    };
    const created = value(await client.create<KubeObject>(widget));
    expect(created.spec).toEqual({ size: 3 });
    const withStatus = value(
      await client.update<KubeObject>({ ...created, status: { ready: true } }, { subresource: "status" }),
    );
    expect(withStatus.status).toEqual({ ready: true });
    const listed = value(
      await client.list({ apiVersion: "example.kyverno-ts.io/v1", kind: "Widget", namespace: "team-a" }),
    );
    expect(listed.items).toHaveLength(1);
    expect(log.events.some((e) => e.operation === "update_status" && e.kind === "Widget")).toBe(true);
    const strategic = await client.patch(
      { apiVersion: "example.kyverno-ts.io/v1", kind: "Widget", namespace: "team-a", name: "w1" },
      { type: "strategic", patch: { spec: { size: 4 } } },
    );
    expect(strategic).toMatchObject({ ok: false, status: 415, reason: "UnsupportedMediaType" });
  });

  it("returns client-side failures as values", async () => {
    expect(
      await client.get({ apiVersion: "example.kyverno-ts.io/v1", kind: "Gadget", name: "x", namespace: "a" }),
    ).toMatchObject({
      ok: false,
      status: 404,
      reason: "UnknownKind",
    });
    expect(await client.get({ apiVersion: "nothere.io/v1", kind: "Thing", name: "x" })).toMatchObject({
      ok: false,
      status: 404,
      reason: "UnknownKind",
    });
    expect(await client.get({ apiVersion: "v1", kind: "ConfigMap", name: "x" })).toMatchObject({
      ok: false,
      status: 0,
      reason: "InvalidRequest",
    });
    const abort = new AbortController();
    abort.abort();
    expect(await client.list({ apiVersion: "v1", kind: "ConfigMap", signal: abort.signal })).toMatchObject({
      ok: false,
      reason: "Aborted",
    });

    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [
        { name: "c", server: sandbox.url, caData: Buffer.from(sandbox.caCertPem).toString("base64") },
      ],
      users: [{ name: "u", token: "wrong" }],
      contexts: [{ name: "ctx", cluster: "c", user: "u" }],
      currentContext: "ctx",
    });
    const intruder = createKubeClient({ kubeconfig: kc });
    expect(await intruder.list({ apiVersion: "v1", kind: "ConfigMap" })).toMatchObject({
      ok: false,
      status: 401,
      reason: "Unauthorized",
    });
    intruder.close();

    const nowhere = new KubeConfig();
    nowhere.loadFromOptions({
      clusters: [{ name: "c", server: "https://127.0.0.1:1", skipTLSVerify: true }],
      users: [{ name: "u", token: "t" }],
      contexts: [{ name: "ctx", cluster: "c", user: "u" }],
      currentContext: "ctx",
    });
    const offline = createKubeClient({ kubeconfig: nowhere });
    expect(await offline.get({ apiVersion: "v1", kind: "Namespace", name: "default" })).toMatchObject({
      ok: false,
      status: 0,
      reason: "Unreachable",
    });
    offline.close();
  });

  it("reports every request to onQuery with Kyverno's labels", async () => {
    const local = queryLog();
    const observed = createKubeClient({
      kubeconfigPath: sandbox.kubeconfigPath,
      onQuery: local.onQuery,
      clientType: "kubeclient",
    });
    await observed.create(configMap("metrics"));
    await observed.get({ apiVersion: "v1", kind: "ConfigMap", namespace: "default", name: "metrics" });
    await observed.get({ apiVersion: "v1", kind: "ConfigMap", namespace: "default", name: "missing" });
    await observed.list({ apiVersion: "v1", kind: "Namespace" });
    await observed.delete({ apiVersion: "v1", kind: "ConfigMap", namespace: "default", name: "metrics" });
    expect(
      local.events.map(({ operation, clientType, kind, namespace, status }) => ({
        operation,
        clientType,
        kind,
        namespace,
        status,
      })),
    ).toEqual([
      { operation: "create", clientType: "kubeclient", kind: "ConfigMap", namespace: "default", status: 201 },
      { operation: "get", clientType: "kubeclient", kind: "ConfigMap", namespace: "default", status: 200 },
      { operation: "get", clientType: "kubeclient", kind: "ConfigMap", namespace: "default", status: 404 },
      { operation: "list", clientType: "kubeclient", kind: "Namespace", namespace: "", status: 200 },
      { operation: "delete", clientType: "kubeclient", kind: "ConfigMap", namespace: "default", status: 200 },
    ]);
    observed.close();
  });

  it("limits requests to qps after the burst", async () => {
    const limited = createKubeClient({ kubeconfigPath: sandbox.kubeconfigPath, qps: 20, burst: 2 });
    await limited.resource("v1", "Namespace"); // discovery outside the measurement
    await new Promise((resolve) => setTimeout(resolve, 200)); // refill
    const start = Date.now();
    await Promise.all(
      Array.from({ length: 6 }, () => limited.get({ apiVersion: "v1", kind: "Namespace", name: "default" })),
    );
    const elapsed = Date.now() - start;
    // 2 immediately, then 4 more at 50 ms intervals
    expect(elapsed).toBeGreaterThanOrEqual(190);
    expect(elapsed).toBeLessThan(1500);
    limited.close();
  });

  it("streams watch events and stops on request", async () => {
    const listed = value(await client.list({ apiVersion: "v1", kind: "ConfigMap", namespace: "default" }));
    const events: WatchEvent<KubeObject>[] = [];
    const stream = value(
      await client.watch<KubeObject>(
        {
          apiVersion: "v1",
          kind: "ConfigMap",
          namespace: "default",
          resourceVersion: listed.metadata.resourceVersion,
        },
        (event) => events.push(event),
      ),
    );
    value(await client.create(configMap("watched")));
    value(
      await client.patch(
        { apiVersion: "v1", kind: "ConfigMap", namespace: "default", name: "watched" },
        { type: "merge", patch: { data: { a: "1" } } },
      ),
    );
    value(
      await client.delete({ apiVersion: "v1", kind: "ConfigMap", namespace: "default", name: "watched" }),
    );
    const deadline = Date.now() + 3000;
    while (events.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(events.map((e) => e.type)).toEqual(["ADDED", "MODIFIED", "DELETED"]);
    stream.stop();
    expect(await stream.done).toEqual({ reason: "stopped" });
  });

  it("reports a watch from a compacted version as 410 (at open or as an ERROR event)", async () => {
    const small = await startSandbox({ watchHistorySize: 3 });
    const c = createKubeClient({ kubeconfigPath: small.kubeconfigPath });
    try {
      const listed = value(await c.list({ apiVersion: "v1", kind: "ConfigMap" }));
      for (let i = 0; i < 6; i++) value(await c.create(configMap(`old-${i}`)));
      const events: WatchEvent<KubeObject>[] = [];
      const opened = await c.watch(
        { apiVersion: "v1", kind: "ConfigMap", resourceVersion: listed.metadata.resourceVersion },
        (event) => events.push(event),
      );
      if (opened.ok) {
        expect(await opened.value.done).toEqual({ reason: "closed" });
        expect(events).toEqual([
          { type: "ERROR", failure: expect.objectContaining({ status: 410, reason: "Expired" }) },
        ]);
      } else expect(opened).toMatchObject({ status: 410 });
    } finally {
      c.close();
      await small.stop();
    }
  });
});
