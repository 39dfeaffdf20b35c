import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createHttpClient } from "../delivery/http-client.js";
import { sharedJsonResult } from "../format.js";
import { NOW, type Receiver, sampleResult, startReceiver, testDeps } from "../testing/receiver.js";
import type { HttpClient } from "../types.js";
import { createElasticsearchTarget, elasticsearchIndex } from "./elasticsearch.js";

describe("Elasticsearch target", () => {
  let receiver: Receiver;
  let http: HttpClient;
  beforeEach(async () => {
    receiver = await startReceiver(() => ({ status: 201, body: '{"result":"created"}' }));
    http = createHttpClient();
  });
  afterEach(async () => {
    await http.close();
    await receiver.close();
  });

  it.each([
    ["daily", "policy-reporter-2026.03.04"],
    ["monthly", "policy-reporter-2026.03"],
    ["annually", "policy-reporter-2026"],
    ["none", "policy-reporter"],
  ] as const)("rotates the index %s", (rotation, index) => {
    expect(elasticsearchIndex("policy-reporter", rotation, NOW)).toBe(index);
  });

  it("posts the shared body to the daily index with the legacy type and basic auth", async () => {
    const target = createElasticsearchTarget(
      { host: receiver.url, username: "elastic", password: "secret", customFields: { cluster: "prod" } },
      testDeps(http),
    );
    const result = sampleResult();
    await target.send(result);
    const [req] = await receiver.waitFor(1);
    expect(req?.method).toBe("POST");
    expect(req?.path).toBe("/policy-reporter-2026.03.04/event");
    expect(req?.headers.authorization).toBe(`Basic ${Buffer.from("elastic:secret").toString("base64")}`);
    expect(req?.json).toEqual(sharedJsonResult(result, { cluster: "prod" }, NOW));
  });

  it("uses the typeless API, a custom monthly index and API-key auth", async () => {
    const target = createElasticsearchTarget(
      {
        host: receiver.url,
        index: "kyverno",
        rotation: "monthly",
        typelessApi: true,
        apiKey: "a2V5",
        username: "x",
      },
      testDeps(http),
    );
    await target.sendBatch([sampleResult({ id: "1" }), sampleResult({ id: "2" })]);
    const reqs = await receiver.waitFor(2);
    expect(reqs.map((r) => r.path)).toEqual(["/kyverno-2026.03/_doc", "/kyverno-2026.03/_doc"]);
    expect(reqs[0]?.headers.authorization).toBe("ApiKey a2V5");
  });
});
