import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createHttpClient } from "../delivery/http-client.js";
import { USER_AGENT } from "../delivery/sender.js";
import { NOW, type Receiver, sampleResult, startReceiver, testClock, testDeps } from "../testing/receiver.js";
import type { HttpClient } from "../types.js";
import { createWebhookTarget, startWebhookKeepalive } from "./webhook.js";

describe("webhook target", () => {
  let receiver: Receiver;
  let http: HttpClient;
  beforeEach(async () => {
    receiver = await startReceiver();
    http = createHttpClient();
  });
  afterEach(async () => {
    await http.close();
    await receiver.close();
  });

  it("posts the shared JSON body with the configured headers and a User-Agent", async () => {
    const target = createWebhookTarget(
      {
        webhook: `${receiver.url}/hook`,
        headers: { Authorization: "Bearer t0k3n", "X-Cluster": "prod" },
        customFields: { cluster: "prod" },
      },
      testDeps(http),
    );
    await target.send(sampleResult({ properties: { owner: "me" } }));
    const [req] = await receiver.waitFor(1);
    expect(req?.path).toBe("/hook");
    expect(req?.headers.authorization).toBe("Bearer t0k3n");
    expect(req?.headers["x-cluster"]).toBe("prod");
    expect(req?.headers["user-agent"]).toBe(USER_AGENT);
    expect(req?.body).toBe(
      JSON.stringify({
        message: "label 'team' is required",
        policy: "require-labels",
        rule: "check-team",
        priority: "error",
        status: "fail",
        severity: "high",
        category: "Best Practices",
        scored: true,
        properties: { owner: "me", cluster: "prod" },
        resource: { apiVersion: "v1", kind: "Pod", name: "nginx", namespace: "default", uid: "uid-1" },
        creationTimestamp: "2026-03-04T05:00:00.000Z",
        source: "kyverno",
      }),
    );
  });

  it("omits empty optional fields and uses now when the result has no timestamp", async () => {
    const target = createWebhookTarget({ webhook: receiver.url }, testDeps(http));
    await target.send({ id: "1", policy: "p", result: "warn", message: "m" });
    const [req] = await receiver.waitFor(1);
    expect(req?.json).toEqual({
      message: "m",
      policy: "p",
      rule: "",
      priority: "warning",
      status: "warn",
      scored: false,
      resource: {},
      creationTimestamp: NOW.toISOString(),
    });
  });

  it("sends a batch one request per result", async () => {
    const target = createWebhookTarget({ webhook: receiver.url }, testDeps(http));
    await target.sendBatch([sampleResult({ id: "1" }), sampleResult({ id: "2" }), sampleResult({ id: "3" })]);
    expect(await receiver.waitFor(3)).toHaveLength(3);
  });

  it("sends keepalive heartbeats with the configured params until stopped", async () => {
    const clock = testClock(NOW, true);
    const keepalive = startWebhookKeepalive(
      { webhook: `${receiver.url}/hb`, intervalMs: 20, params: { cluster: "prod" }, headers: { "X-A": "1" } },
      { ...testDeps(http), clock },
    );
    const reqs = await receiver.waitFor(2);
    await keepalive.stop();
    expect(reqs[0]?.path).toBe("/hb");
    expect(reqs[0]?.headers["x-a"]).toBe("1");
    expect(reqs[0]?.json).toEqual({ type: "heartbeat", timestamp: NOW.toISOString(), cluster: "prod" });
    const after = receiver.requests.length;
    await new Promise((r) => setTimeout(r, 60));
    expect(receiver.requests.length).toBe(after);
  });
});
