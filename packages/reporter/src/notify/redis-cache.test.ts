import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  createHttpClient,
  createWebhookTarget,
  type HttpClient,
  type NotifiableResult,
} from "../targets/index.js";
import {
  NOW,
  type Receiver,
  sampleResult,
  startReceiver,
  testClock,
  testLogger,
} from "../targets/testing/receiver.js";
import { createNotifier, type Notifier } from "./notifier.js";
import { createRedisSeenCache } from "./redis-cache.js";
import type { NotifierReport } from "./types.js";

const res = (id: string, over: Partial<NotifiableResult> = {}): NotifiableResult =>
  sampleResult({ id, message: `msg-${id}`, timestamp: NOW.getTime() + 1000, ...over });

const report = (results: NotifiableResult[]): NotifierReport => ({
  id: "report-1",
  name: "pod-report",
  namespace: "default",
  creationTimestamp: NOW.getTime() + 1000,
  results,
});

describe("Redis seen cache", () => {
  let a: Redis;
  let b: Redis;
  let prefix: string;
  let receiver: Receiver;
  const clients: HttpClient[] = [];

  beforeAll(async () => {
    a = new Redis({ host: "127.0.0.1", port: 6379, maxRetriesPerRequest: 1 });
    b = new Redis({ host: "127.0.0.1", port: 6379, maxRetriesPerRequest: 1 });
    await Promise.all([a.ping(), b.ping()]);
  });
  afterAll(async () => {
    await Promise.all([a.quit(), b.quit()]);
  });
  beforeEach(async () => {
    prefix = `kyverno-ts-test-${randomUUID()}`;
    receiver = await startReceiver();
  });
  afterEach(async () => {
    const keys = await a.keys(`${prefix}:*`);
    if (keys.length > 0) await a.del(...keys);
    await Promise.all(clients.splice(0).map((c) => c.close()));
    await receiver.close();
  });

  /** A replica: its own Redis connection, HTTP client and notifier, posting to the shared receiver. */
  const replica = (redis: Redis, sendResolved = false): Notifier => {
    const clock = testClock();
    const http = createHttpClient();
    clients.push(http);
    const deps = { clock, logger: testLogger() };
    return createNotifier(
      {
        targets: [
          {
            target: createWebhookTarget({ webhook: receiver.url }, { ...deps, http }),
            skipExistingOnStartup: true,
            sendResolved,
          },
        ],
        cache: createRedisSeenCache(redis, { prefix }),
        startedAt: NOW.getTime(),
      },
      deps,
    );
  };

  it("claims each result ID once across connections, with a TTL", async () => {
    const ca = createRedisSeenCache(a, { prefix, ttlMs: 60_000 });
    const cb = createRedisSeenCache(b, { prefix, ttlMs: 60_000 });
    const [x, y] = await Promise.all([ca.claim("r", ["1", "2", "3"]), cb.claim("r", ["1", "2", "3"])]);
    expect([...x, ...y].sort()).toEqual(["1", "2", "3"]);
    expect([...(await ca.claim("r", ["3", "4"]))]).toEqual(["4"]);
    const ttl = await a.pttl(`${prefix}:seen:r:1`);
    expect(ttl).toBeGreaterThan(50_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });

  it("two notifier replicas sharing Redis send each notification once", async () => {
    const one = replica(a);
    const two = replica(b);
    const first = report([res("1"), res("2"), res("p", { result: "pass" })]);
    const second = report([res("1"), res("2"), res("3"), res("p", { result: "pass" })]);
    await Promise.all([
      one.handle({ type: "added", report: first }),
      two.handle({ type: "added", report: first }),
    ]);
    await Promise.all([
      one.handle({ type: "updated", report: second }),
      two.handle({ type: "updated", report: second }),
    ]);
    await Promise.all([one.idle(), two.idle()]);
    const sent = receiver.requests.map((r) => (r.json as { message: string }).message);
    expect(sent.sort()).toEqual(["msg-1", "msg-2", "msg-3"]);
  });

  it("sends a resolved notification once across replicas and forgets deleted reports", async () => {
    const one = replica(a, true);
    const two = replica(b, true);
    const resource = { kind: "Pod", name: "nginx", namespace: "default", uid: "u-1" };
    const failing = report([res("f", { resource })]);
    const passing = report([res("p", { result: "pass", message: "fixed", resource })]);
    await Promise.all([
      one.handle({ type: "added", report: failing }),
      two.handle({ type: "added", report: failing }),
    ]);
    await Promise.all([
      one.handle({ type: "updated", report: passing }),
      two.handle({ type: "updated", report: passing }),
    ]);
    await Promise.all([one.idle(), two.idle()]);
    expect(receiver.requests.map((r) => (r.json as { status: string }).status)).toEqual(["fail", "pass"]);

    expect((await a.keys(`${prefix}:*`)).length).toBeGreaterThan(0);
    await one.handle({ type: "deleted", report: { id: "report-1" } });
    expect(await a.keys(`${prefix}:*`)).toEqual([]);
  });
});
