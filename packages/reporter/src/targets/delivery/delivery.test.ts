import { createManualClock } from "@kyverno-ts/api";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Receiver, sampleResult, startReceiver, testDeps, testLogger } from "../testing/receiver.js";
import type { DeliveryFailure, HttpClient, Target } from "../types.js";
import { createWebhookTarget } from "../webhook/webhook.js";
import { DeliveryError } from "./errors.js";
import { createHttpClient } from "./http-client.js";
import { createDeliveryQueue } from "./queue.js";

describe("delivery: retries and timeouts", () => {
  let http: HttpClient;
  const receivers: Receiver[] = [];
  const receiver = async (...args: Parameters<typeof startReceiver>) => {
    const r = await startReceiver(...args);
    receivers.push(r);
    return r;
  };
  beforeEach(() => {
    http = createHttpClient();
  });
  afterEach(async () => {
    await http.close();
    await Promise.all(receivers.splice(0).map((r) => r.close()));
  });

  it("retries a 500 with exponential backoff until a 200, counting each failure", async () => {
    const rcv = await receiver((_req, i) => (i < 2 ? { status: 500, body: "boom" } : { status: 200 }));
    const failures: DeliveryFailure[] = [];
    const deps = testDeps(http, (f) => failures.push(f));
    const target = createWebhookTarget(
      { webhook: rcv.url, delivery: { retries: 3, backoffMs: 100, maxBackoffMs: 1000 } },
      deps,
    );
    await target.send(sampleResult());
    expect(rcv.requests).toHaveLength(3);
    expect(rcv.requests[2]?.body).toBe(rcv.requests[0]?.body);
    // (30 s timers are the windows of the aggregated failure lines)
    expect(deps.clock.sleeps.filter((ms) => ms !== 30_000)).toEqual([100, 200]);
    expect(failures).toEqual([
      {
        target: "Webhook",
        code: "HTTP_STATUS",
        status: 500,
        attempt: 1,
        willRetry: true,
        message: "HTTP 500: boom",
      },
      {
        target: "Webhook",
        code: "HTTP_STATUS",
        status: 500,
        attempt: 2,
        willRetry: true,
        message: "HTTP 500: boom",
      },
    ]);
  });

  it("gives up after the configured retries with a DeliveryError", async () => {
    const rcv = await receiver(() => ({ status: 503 }));
    const failures: DeliveryFailure[] = [];
    const target = createWebhookTarget(
      { webhook: rcv.url, delivery: { retries: 2, backoffMs: 1 } },
      testDeps(http, (f) => failures.push(f)),
    );
    const error = await target.send(sampleResult()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DeliveryError);
    expect((error as DeliveryError).code).toBe("HTTP_STATUS");
    expect((error as DeliveryError).status).toBe(503);
    expect(rcv.requests).toHaveLength(3);
    expect(failures.map((f) => f.willRetry)).toEqual([true, true, false]);
  });

  it("does not retry a 4xx other than 408 / 429", async () => {
    const rcv = await receiver(() => ({ status: 400 }));
    const target = createWebhookTarget({ webhook: rcv.url }, testDeps(http));
    await expect(target.send(sampleResult())).rejects.toMatchObject({ code: "HTTP_STATUS", status: 400 });
    expect(rcv.requests).toHaveLength(1);
  });

  it("honours Retry-After on 429 within the backoff cap", async () => {
    const rcv = await receiver((_r, i) =>
      i === 0 ? { status: 429, headers: { "retry-after": "3" } } : { status: 200 },
    );
    const deps = testDeps(http);
    const target = createWebhookTarget(
      { webhook: rcv.url, delivery: { backoffMs: 10, maxBackoffMs: 2000 } },
      deps,
    );
    await target.send(sampleResult());
    expect(deps.clock.sleeps.filter((ms) => ms !== 30_000)).toEqual([2000]);
  });

  it("times out a hanging request and retries it", async () => {
    const rcv = await receiver((_r, i) => (i === 0 ? "hang" : { status: 200 }));
    const failures: DeliveryFailure[] = [];
    const target = createWebhookTarget(
      { webhook: rcv.url, delivery: { timeoutMs: 100, retries: 1, backoffMs: 1 } },
      testDeps(http, (f) => failures.push(f)),
    );
    const started = Date.now();
    await target.send(sampleResult());
    expect(Date.now() - started).toBeLessThan(1000);
    expect(rcv.requests).toHaveLength(2);
    expect(failures).toMatchObject([{ code: "TIMEOUT", attempt: 1, willRetry: true }]);
  });

  it("reports an unreachable target as a network error", async () => {
    const rcv = await receiver();
    const url = rcv.url;
    await rcv.close();
    receivers.pop();
    const target = createWebhookTarget(
      { webhook: url, delivery: { retries: 1, backoffMs: 1 } },
      testDeps(http),
    );
    await expect(target.send(sampleResult())).rejects.toMatchObject({ code: "NETWORK" });
  });
});

describe("delivery queue", () => {
  const slowTarget = (name: string, calls: string[], gate: Promise<void>): Target => ({
    name,
    async send(r) {
      calls.push(`send:${r.id}`);
      await gate;
    },
    async sendBatch(rs) {
      calls.push(`batch:${rs.map((r) => r.id).join(",")}`);
      await gate;
    },
  });

  it("returns at once, delivers in order, and keeps send and sendBatch apart", async () => {
    const calls: string[] = [];
    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const queue = createDeliveryQueue(slowTarget("t", calls, gate), {}, { logger: testLogger() });
    await queue.send(sampleResult({ id: "1" }));
    await queue.sendBatch([sampleResult({ id: "2" }), sampleResult({ id: "3" })]);
    expect(queue.pending).toBe(2);
    open();
    await queue.idle();
    expect(calls).toEqual(["send:1", "batch:2,3"]);
    expect(queue.pending).toBe(0);
  });

  it("drops sends beyond its capacity and reports QUEUE_FULL", async () => {
    const failures: DeliveryFailure[] = [];
    const calls: string[] = [];
    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const logger = testLogger();
    const queue = createDeliveryQueue(
      slowTarget("t", calls, gate),
      { capacity: 1 },
      { logger, onError: (f) => failures.push(f) },
    );
    await queue.send(sampleResult({ id: "1" })); // in flight
    await queue.send(sampleResult({ id: "2" })); // queued
    await queue.send(sampleResult({ id: "3" })); // dropped
    open();
    await queue.close();
    expect(calls).toEqual(["send:1", "send:2"]);
    expect(failures).toMatchObject([{ target: "t", code: "QUEUE_FULL", attempt: 0, willRetry: false }]);
    await queue.send(sampleResult({ id: "4" }));
    expect(failures).toHaveLength(2);
  });

  it("logs one line for thousands of notifications an unreachable target drops, then a summary per 30 s", async () => {
    const logger = testLogger();
    const clock = createManualClock();
    const target: Target = {
      name: "slack",
      send: async () => {
        throw new DeliveryError("slack", "NETWORK", "connect ECONNREFUSED");
      },
      sendBatch: async () => {},
    };
    const queue = createDeliveryQueue(target, { capacity: 10_000 }, { logger, clock });
    for (let i = 0; i < 5_001; i++) await queue.send(sampleResult({ id: String(i) }));
    await queue.idle();
    expect(logger.lines.map((l) => l.message)).toEqual(["notification dropped: slack: connect ECONNREFUSED"]);
    clock.advance(30_000);
    expect(logger.lines.map((l) => l.message)).toEqual([
      "notification dropped: slack: connect ECONNREFUSED",
      "dropped 5,000 notifications to slack in the last 30 s (NETWORK: slack: connect ECONNREFUSED)",
    ]);
    expect(logger.lines[1]?.fields).toMatchObject({ target: "slack", code: "NETWORK", suppressed: 5000 });
    await queue.close();
  });

  it("logs a failed delivery and goes on with the next", async () => {
    const logger = testLogger();
    const calls: string[] = [];
    const target: Target = {
      name: "t",
      send: async () => {},
      async sendBatch(rs) {
        calls.push(rs[0]?.id ?? "");
        if (rs[0]?.id === "1") throw new DeliveryError("t", "TIMEOUT", "slow");
      },
    };
    const queue = createDeliveryQueue(target, {}, { logger });
    await queue.sendBatch([sampleResult({ id: "1" })]);
    await queue.sendBatch([sampleResult({ id: "2" })]);
    await queue.idle();
    expect(calls).toEqual(["1", "2"]);
    expect(logger.lines).toMatchObject([{ level: "error", fields: { target: "t", code: "TIMEOUT" } }]);
  });
});
