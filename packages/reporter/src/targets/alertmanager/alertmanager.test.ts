import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createHttpClient } from "../delivery/http-client.js";
import { NOW, type Receiver, sampleResult, startReceiver, testDeps } from "../testing/receiver.js";
import type { HttpClient } from "../types.js";
import { type AlertManagerAlert, createAlertManagerTarget } from "./alertmanager.js";

describe("AlertManager target", () => {
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

  it("posts all alerts of a batch to /api/v2/alerts", async () => {
    const target = createAlertManagerTarget(
      { host: `${receiver.url}/`, customFields: { cluster: "prod" } },
      testDeps(http),
    );
    await target.sendBatch([sampleResult({ properties: { owner: "me" } }), sampleResult({ id: "2" })]);
    const [req] = await receiver.waitFor(1);
    expect(req?.path).toBe("/api/v2/alerts");
    const alerts = req?.json as AlertManagerAlert[];
    expect(alerts).toHaveLength(2);
    expect(alerts[0]).toEqual({
      labels: {
        alertname: "PolicyReporterViolation",
        severity: "high",
        status: "fail",
        source: "kyverno",
        policy: "require-labels",
        rule: "check-team",
        namespace: "default",
        cluster: "prod",
      },
      annotations: {
        message: "label 'team' is required",
        category: "Best Practices",
        resource: "default/pod/nginx",
        resource_kind: "Pod",
        resource_name: "nginx",
        resource_namespace: "default",
        resource_apiversion: "v1",
        owner: "me",
      },
      startsAt: "2026-03-04T05:00:00.000Z",
    });
  });

  it("resolves an alert with endsAt and the labels of the failure", async () => {
    const target = createAlertManagerTarget({ host: receiver.url }, testDeps(http));
    const pass = sampleResult({ id: "9", result: "pass", message: "ok" });
    await target.send(pass, { event: "resolved", previousStatus: { "9": "warn" } });
    const [req] = await receiver.waitFor(1);
    const [alert] = req!.json as AlertManagerAlert[];
    expect(alert?.labels.status).toBe("warn");
    expect(alert?.endsAt).toBe(NOW.toISOString());
  });
});
