import { afterEach, describe, expect, it } from "vitest";
import {
  createHttpClient,
  createSlackTarget,
  createWebhookTarget,
  type HttpClient,
  type NotifiableResult,
  type SendContext,
  type SlackPayload,
  type Target,
  type TargetBinding,
} from "../targets/index.js";
import {
  NOW,
  type Receiver,
  sampleResult,
  startReceiver,
  testClock,
  testLogger,
} from "../targets/testing/receiver.js";
import { createMemorySeenCache } from "./memory-cache.js";
import { createNotifier, type Notifier, resolutionKey } from "./notifier.js";
import type { NotifierReport, SeenCache } from "./types.js";

const AFTER_START = NOW.getTime() + 1000;
const BEFORE_START = NOW.getTime() - 60_000;

interface Call {
  ids: string[];
  context: SendContext | undefined;
}

/** A target recording what it gets. */
function recorder(name = "rec"): Target & { calls: Call[] } {
  const calls: Call[] = [];
  return {
    name,
    calls,
    send: async (r, context) => {
      calls.push({ ids: [r.id], context });
    },
    sendBatch: async (rs, context) => {
      calls.push({ ids: rs.map((r) => r.id), context });
    },
  };
}

const res = (id: string, over: Partial<NotifiableResult> = {}): NotifiableResult =>
  sampleResult({
    id,
    timestamp: AFTER_START,
    resource: { kind: "Pod", name: `pod-${id}`, namespace: "default" },
    ...over,
  });

const report = (results: NotifiableResult[], over: Partial<NotifierReport> = {}): NotifierReport => ({
  id: "r1",
  name: "pod-report",
  namespace: "default",
  creationTimestamp: AFTER_START,
  results,
  ...over,
});

function setup(bindings: TargetBinding[]): Notifier {
  const clock = testClock();
  return createNotifier(
    { targets: bindings, cache: createMemorySeenCache({}, { clock }), startedAt: NOW.getTime() },
    { clock, logger: testLogger() },
  );
}

describe("notifier: new results", () => {
  it("notifies unseen fail / warn / error results once, batched per report", async () => {
    const rec = recorder();
    const notifier = setup([{ target: rec, skipExistingOnStartup: true }]);
    const results = [
      res("f", { result: "fail" }),
      res("p", { result: "pass" }),
      res("w", { result: "warn" }),
      res("e", { result: "error" }),
      res("s", { result: "skip" }),
    ];
    expect(await notifier.handle({ type: "added", report: report(results) })).toEqual({
      newResults: 3,
      resolved: 0,
    });
    expect(await notifier.handle({ type: "updated", report: report(results) })).toEqual({
      newResults: 0,
      resolved: 0,
    });
    await notifier.handle({ type: "updated", report: report([...results, res("f2")]) });
    await notifier.idle();
    expect(rec.calls.map((c) => c.ids)).toEqual([["f", "w", "e"], ["f2"]]);
    expect(rec.calls[0]?.context).toEqual({
      event: "new",
      report: { id: "r1", name: "pod-report", namespace: "default" },
    });
  });

  it("keeps detecting but sends nothing while inactive (a follower with its own cache)", async () => {
    const rec = recorder();
    const clock = testClock();
    let active = false;
    const notifier = createNotifier(
      {
        targets: [{ target: rec, skipExistingOnStartup: true }],
        cache: createMemorySeenCache({}, { clock }),
        startedAt: NOW.getTime(),
        active: () => active,
      },
      { clock, logger: testLogger() },
    );
    expect(await notifier.handle({ type: "added", report: report([res("a")]) })).toEqual({
      newResults: 1,
      resolved: 0,
    });
    active = true;
    await notifier.handle({ type: "updated", report: report([res("a"), res("b")]) });
    await notifier.idle();
    expect(rec.calls.map((c) => c.ids)).toEqual([["b"]]);
  });

  it("skips results that existed before start-up for targets with skipExistingOnStartup", async () => {
    const skip = recorder("skip");
    const all = recorder("all");
    const notifier = setup([
      { target: skip, skipExistingOnStartup: true },
      { target: all, skipExistingOnStartup: false },
    ]);
    // A report created before start-up, seen for the first time: everything in it is existing.
    await notifier.handle({
      type: "added",
      report: report([res("old"), res("no-ts", { timestamp: undefined })], {
        creationTimestamp: BEFORE_START,
      }),
    });
    // Its later update brings a genuinely new result.
    await notifier.handle({
      type: "updated",
      report: report([res("old"), res("no-ts", { timestamp: undefined }), res("new")], {
        creationTimestamp: BEFORE_START,
      }),
    });
    // A new report whose result predates start-up (by its timestamp).
    await notifier.handle({
      type: "added",
      report: report([res("stale", { timestamp: BEFORE_START })], { id: "r2" }),
    });
    await notifier.idle();
    expect(skip.calls.map((c) => c.ids)).toEqual([["new"]]);
    expect(all.calls.map((c) => c.ids)).toEqual([["old", "no-ts"], ["new"], ["stale"]]);
  });

  it("forgets a deleted report, so a re-created one notifies again", async () => {
    const rec = recorder();
    const notifier = setup([{ target: rec, skipExistingOnStartup: true }]);
    await notifier.handle({ type: "added", report: report([res("a")]) });
    await notifier.handle({ type: "deleted", report: { id: "r1" } });
    await notifier.handle({ type: "added", report: report([res("a")]) });
    await notifier.idle();
    expect(rec.calls.map((c) => c.ids)).toEqual([["a"], ["a"]]);
  });

  it("counts duplicate result IDs once", async () => {
    const rec = recorder();
    const notifier = setup([{ target: rec, skipExistingOnStartup: true }]);
    await notifier.handle({ type: "added", report: report([res("a"), res("a")]) });
    await notifier.idle();
    expect(rec.calls.map((c) => c.ids)).toEqual([["a"]]);
  });
});

describe("notifier: resolved notifications", () => {
  const resource = { kind: "Pod", name: "nginx", namespace: "default", uid: "u-1" };
  const fail = res("fail-1", { result: "fail", rule: "r", resource });
  const pass = res("pass-1", { result: "pass", rule: "r", message: "ok", resource });

  it("sends the passing result to opted-in targets once, with the previous status", async () => {
    const opted = recorder("opted");
    const plain = recorder("plain");
    const notifier = setup([
      { target: opted, skipExistingOnStartup: true, sendResolved: true },
      { target: plain, skipExistingOnStartup: true },
    ]);
    expect(resolutionKey(fail)).toBe(resolutionKey(pass));
    await notifier.handle({ type: "added", report: report([fail]) });
    expect(await notifier.handle({ type: "updated", report: report([pass]) })).toEqual({
      newResults: 0,
      resolved: 1,
    });
    expect(await notifier.handle({ type: "updated", report: report([pass]) })).toEqual({
      newResults: 0,
      resolved: 0,
    });
    await notifier.idle();
    expect(opted.calls.map((c) => [c.ids, c.context?.event])).toEqual([
      [["fail-1"], "new"],
      [["pass-1"], "resolved"],
    ]);
    expect(opted.calls[1]?.context).toMatchObject({ previousStatus: { "pass-1": "fail" } });
    expect(plain.calls.map((c) => c.ids)).toEqual([["fail-1"]]);
  });

  it("does not resolve a pass that never failed, nor a failure that is still there", async () => {
    const rec = recorder();
    const notifier = setup([{ target: rec, skipExistingOnStartup: true, sendResolved: true }]);
    await notifier.handle({ type: "added", report: report([pass]) });
    const other = res("fail-2", { result: "fail", rule: "other", resource });
    await notifier.handle({ type: "updated", report: report([pass, other]) });
    await notifier.handle({ type: "updated", report: report([pass, other]) });
    await notifier.idle();
    expect(rec.calls.map((c) => [c.ids, c.context?.event])).toEqual([[["fail-2"], "new"]]);
  });

  it("does not tell a skip-existing target about a pre-existing failure's resolution", async () => {
    const skip = recorder("skip");
    const all = recorder("all");
    const notifier = setup([
      { target: skip, skipExistingOnStartup: true, sendResolved: true },
      { target: all, skipExistingOnStartup: false, sendResolved: true },
    ]);
    await notifier.handle({ type: "added", report: report([fail], { creationTimestamp: BEFORE_START }) });
    await notifier.handle({ type: "updated", report: report([pass], { creationTimestamp: BEFORE_START }) });
    await notifier.idle();
    expect(skip.calls).toEqual([]);
    expect(all.calls.map((c) => c.context?.event)).toEqual(["new", "resolved"]);
  });
});

describe("notifier: cache failures", () => {
  it("still sends new results when resolved tracking fails, and rejects when claiming fails", async () => {
    const clock = testClock();
    const logger = testLogger();
    const memory = createMemorySeenCache({}, { clock });
    let claimFails = false;
    const cache: SeenCache = {
      ...memory,
      claim: (id, ids) => (claimFails ? Promise.reject(new Error("redis down")) : memory.claim(id, ids)),
      trackFailures: () => Promise.reject(new Error("redis down")),
    };
    const rec = recorder();
    const notifier = createNotifier(
      {
        targets: [{ target: rec, skipExistingOnStartup: true, sendResolved: true }],
        cache,
        startedAt: NOW.getTime(),
      },
      { clock, logger },
    );
    await notifier.handle({ type: "added", report: report([res("a")]) });
    await notifier.idle();
    expect(rec.calls.map((c) => c.ids)).toEqual([["a"]]);
    expect(logger.lines).toMatchObject([{ level: "error", fields: { report: "r1", err: "redis down" } }]);
    claimFails = true;
    await expect(notifier.handle({ type: "updated", report: report([res("b")]) })).rejects.toThrow(
      "redis down",
    );
    await notifier.idle();
    expect(rec.calls).toHaveLength(1);
  });
});

describe("notifier over real HTTP targets", () => {
  const receivers: Receiver[] = [];
  const clients: HttpClient[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    await Promise.all(receivers.splice(0).map((r) => r.close()));
  });
  const start = async (...args: Parameters<typeof startReceiver>) => {
    const r = await startReceiver(...args);
    receivers.push(r);
    return r;
  };
  const http = () => {
    const c = createHttpClient();
    clients.push(c);
    return c;
  };

  it("a hanging target times out and is retried without delaying another target", async () => {
    const hanging = await start(() => "hang");
    const healthy = await start();
    const clock = testClock(NOW, true);
    const logger = testLogger();
    const errors: string[] = [];
    const deps = { clock, logger, onError: (f: { code: string }) => errors.push(f.code) };
    const slow = createWebhookTarget(
      { name: "slow", webhook: hanging.url, delivery: { timeoutMs: 100, retries: 1, backoffMs: 10 } },
      { ...deps, http: http() },
    );
    const fast = createWebhookTarget({ name: "fast", webhook: healthy.url }, { ...deps, http: http() });
    const notifier = createNotifier(
      {
        targets: [
          { target: slow, skipExistingOnStartup: true },
          { target: fast, skipExistingOnStartup: true },
        ],
        cache: createMemorySeenCache({}, { clock }),
        startedAt: NOW.getTime(),
      },
      deps,
    );
    await notifier.handle({ type: "added", report: report([res("a"), res("b")]) });
    // handle() only queues: it returned before the slow target's first 100 ms timeout fired.
    expect(errors).toEqual([]);
    await healthy.waitFor(2, 1000);
    // The fast target did not wait behind the slow one: serial delivery would only reach it after
    // the slow target's four timed-out attempts (two results, a retry each).
    expect(errors.length).toBeLessThan(4);
    expect(hanging.requests.length).toBeGreaterThanOrEqual(1);
    await notifier.close();
    // Each of the two results: a timed-out attempt, a timed-out retry.
    expect(hanging.requests).toHaveLength(4);
    expect(errors).toEqual(["TIMEOUT", "TIMEOUT", "TIMEOUT", "TIMEOUT"]);
    expect(logger.lines.filter((l) => l.level === "error")).toHaveLength(1);
  });

  it("retries a target that answers 500 then 200", async () => {
    const flaky = await start((_r, i) => (i === 0 ? { status: 500 } : { status: 200 }));
    const clock = testClock();
    const notifier = createNotifier(
      {
        targets: [
          {
            target: createWebhookTarget(
              { webhook: flaky.url },
              { clock, logger: testLogger(), http: http() },
            ),
            skipExistingOnStartup: true,
          },
        ],
        cache: createMemorySeenCache({}, { clock }),
        startedAt: NOW.getTime(),
      },
      { clock, logger: testLogger() },
    );
    await notifier.handle({ type: "added", report: report([res("a")]) });
    await notifier.idle();
    expect(flaky.requests).toHaveLength(2);
    expect(flaky.requests[0]?.body).toBe(flaky.requests[1]?.body);
  });

  it("sends a scoped report's new results to Slack as one message", async () => {
    const slack = await start();
    const clock = testClock();
    const deps = { clock, logger: testLogger() };
    const notifier = createNotifier(
      {
        targets: [
          {
            target: createSlackTarget({ webhook: slack.url }, { ...deps, http: http() }),
            skipExistingOnStartup: true,
          },
        ],
        cache: createMemorySeenCache({}, deps),
        startedAt: NOW.getTime(),
      },
      deps,
    );
    const scope = { apiVersion: "v1", kind: "Pod", name: "nginx", namespace: "default" };
    await notifier.handle({ type: "added", report: report([res("a"), res("b"), res("c")], { scope }) });
    await notifier.idle();
    expect(slack.requests).toHaveLength(1);
    expect((slack.requests[0]!.json as SlackPayload).attachments).toHaveLength(3);
  });
});
