import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createHttpClient } from "../delivery/http-client.js";
import { type Receiver, sampleResult, startReceiver, testDeps } from "../testing/receiver.js";
import type { HttpClient } from "../types.js";
import { createLokiTarget, type LokiPayload, lokiLabelName } from "./loki.js";

describe("Loki target", () => {
  let receiver: Receiver;
  let http: HttpClient;
  beforeEach(async () => {
    receiver = await startReceiver(() => ({ status: 204 }));
    http = createHttpClient();
  });
  afterEach(async () => {
    await http.close();
    await receiver.close();
  });

  it("pushes one stream per result in a single request, labelled, with a nanosecond timestamp", async () => {
    const target = createLokiTarget(
      { host: `${receiver.url}/`, customFields: { cluster: "prod" }, username: "u", password: "p" },
      testDeps(http),
    );
    await target.sendBatch([
      sampleResult({ properties: { "app.kubernetes.io/name": "web" } }),
      sampleResult({ id: "2", severity: undefined, result: "error", rule: "", resource: undefined }),
    ]);
    const [req] = await receiver.waitFor(1);
    expect(req?.path).toBe("/loki/api/v1/push");
    expect(req?.headers.authorization).toBe(`Basic ${Buffer.from("u:p").toString("base64")}`);
    expect(req?.json).toEqual({
      streams: [
        {
          stream: {
            status: "fail",
            policy: "require-labels",
            rule: "check-team",
            category: "Best Practices",
            severity: "high",
            source: "kyverno",
            apiVersion: "v1",
            kind: "Pod",
            name: "nginx",
            namespace: "default",
            createdBy: "policy-reporter",
            app_kubernetes_io_name: "web",
            cluster: "prod",
          },
          values: [["1772600400000000000", "[HIGH] label 'team' is required"]],
        },
        {
          stream: {
            status: "error",
            policy: "require-labels",
            category: "Best Practices",
            source: "kyverno",
            createdBy: "policy-reporter",
            cluster: "prod",
          },
          values: [["1772600400000000000", "[ERROR] label 'team' is required"]],
        },
      ],
    } satisfies LokiPayload);
  });

  it("uses a custom push path and sends a single result as one stream", async () => {
    const target = createLokiTarget({ host: receiver.url, path: "/api/prom/push" }, testDeps(http));
    await target.send(sampleResult());
    const [req] = await receiver.waitFor(1);
    expect(req?.path).toBe("/api/prom/push");
    expect(req?.headers.authorization).toBeUndefined();
    expect((req!.json as LokiPayload).streams).toHaveLength(1);
  });

  it("sanitises label names", () => {
    expect(lokiLabelName("a.b/c-d")).toBe("a_b_c_d");
    expect(lokiLabelName("1x")).toBe("_1x");
  });
});
