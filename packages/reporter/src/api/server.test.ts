import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createMetrics } from "../metrics/metrics.js";
import { createStore } from "../store/connect.js";
import type { ReportStore } from "../store/types.js";
import { apiDataset } from "../testing/api-dataset.js";
import { createApiServer } from "./server.js";

const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;

describe("API server", () => {
  let store: ReportStore;
  beforeEach(async () => {
    store = await createStore({ type: "sqlite" });
  });
  afterEach(async () => {
    await store.close();
  });

  it("is not ready until setReady(true); /healthz reflects the store", async () => {
    const api = await createApiServer({ store });
    expect((await api.app.inject({ url: "/ready" })).statusCode).toBe(503);
    api.setReady(true);
    expect((await api.app.inject({ url: "/ready" })).json()).toEqual({ status: "ok" });
    expect((await api.app.inject({ url: "/healthz" })).statusCode).toBe(200);
    await store.close();
    const down = await api.app.inject({ url: "/healthz" });
    expect(down.statusCode).toBe(503);
    expect(down.json()).toMatchObject({ status: "unavailable" });
    const failing = await api.app.inject({ url: "/v2/namespaces" });
    expect(failing.statusCode).toBe(500);
    expect(failing.json()).toMatchObject({ code: "STORE_READ_FAILED" });
    store = await createStore({ type: "sqlite" });
    await api.close();
  });

  it("requires basic auth everywhere but the probes", async () => {
    const api = await createApiServer({
      store,
      basicAuth: { username: "admin", password: "s3cret" },
      ready: true,
    });
    expect((await api.app.inject({ url: "/healthz" })).statusCode).toBe(200);
    expect((await api.app.inject({ url: "/ready" })).statusCode).toBe(200);
    const denied = await api.app.inject({ url: "/v2/namespaces" });
    expect(denied.statusCode).toBe(401);
    expect(denied.headers["www-authenticate"]).toContain("Basic");
    const wrong = await api.app.inject({
      url: "/v2/namespaces",
      headers: { authorization: basic("admin", "nope") },
    });
    expect(wrong.statusCode).toBe(401);
    const ok = await api.app.inject({
      url: "/v2/namespaces",
      headers: { authorization: basic("admin", "s3cret") },
    });
    expect(ok.statusCode).toBe(200);
    await api.close();
  });

  it("serves /metrics and the targets", async () => {
    const metrics = createMetrics();
    for (const report of apiDataset()) metrics.upsertReport(report);
    const targets = [
      { name: "discord", type: "discord", minimumSeverity: "high", sources: [], skipExistingOnStartup: true },
    ];
    const api = await createApiServer({ store, metrics, targets: () => targets, ready: true });
    const res = await api.app.inject({ url: "/metrics" });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain(
      'policy_report_result{namespace="team-a",rule="check-labels",policy="require-labels"',
    );
    expect(res.body).toContain("cluster_policy_report_result{");
    expect((await api.app.inject({ url: "/v1/targets" })).json()).toEqual(targets);
    expect((await api.app.inject({ url: "/v2/targets" })).json()).toEqual(targets);
    await api.close();
  });

  it("listens on a port", async () => {
    await store.write(apiDataset().map((report) => ({ type: "upsert" as const, report })));
    const api = await createApiServer({ store, ready: true });
    const address = await api.listen({ port: 0, host: "127.0.0.1" });
    const res = await fetch(`${address}/v2/sources`);
    expect(await res.json()).toEqual(["kyverno", "trivy"]);
    await api.close();
  });
});
