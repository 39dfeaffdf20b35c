/**
 * End to end: reports written to the sandbox API server lead to notifications at real local HTTP
 * receivers: the payloads of new and resolved failures, filtering, retries of a failing target, a
 * hanging or unreachable target not blocking the others; two replicas sharing Redis send each
 * notification once; with leader election only the leader sends.
 */
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningReporter, startReporter } from "../app/reporter.js";
import { METRIC_NAMES } from "../metrics/metrics.js";
import { type ReceivedRequest, type Receiver, startReceiver } from "../targets/testing/receiver.js";
import {
  eventually,
  liveResult,
  metricValues,
  policyReport,
  startTestCluster,
  type TestCluster,
  testConfig,
} from "../testing/cluster.js";

type Body = { policy?: string; status?: string; severity?: string; properties?: Record<string, string> };
const body = (r: ReceivedRequest) => r.json as Body;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("notifications end to end", { timeout: 20_000 }, () => {
  let cluster: TestCluster;
  const receivers: Receiver[] = [];
  const reporters: RunningReporter[] = [];
  const receiver = async (...args: Parameters<typeof startReceiver>) => {
    const r = await startReceiver(...args);
    receivers.push(r);
    return r;
  };
  const start = async (config: Record<string, unknown>) => {
    const reporter = await startReporter({
      config: testConfig(config),
      client: cluster.client,
      port: 0,
      host: "127.0.0.1",
      shutdownTimeoutMs: 500,
    });
    reporters.push(reporter);
    return reporter;
  };

  beforeAll(async () => {
    cluster = await startTestCluster({ namespaces: ["team-a", "team-b", "team-c", "team-d"] });
  });
  afterAll(async () => {
    await Promise.all(reporters.map((r) => r.stop()));
    await Promise.all(receivers.map((r) => r.close()));
    await cluster?.stop();
  });

  it("sends new and resolved failures to each target; failing, hanging and unreachable targets block no one", async () => {
    const webhook = await receiver();
    const slack = await receiver();
    const flaky = await receiver((_req, i) => (i < 2 ? { status: 500, body: "busy" } : { status: 200 }));
    const hanging = await receiver(() => "hang");
    const reporter = await start({
      target: {
        webhook: { webhook: webhook.url, sendResolved: true, customFields: { cluster: "e2e" } },
        slack: {
          webhook: slack.url,
          minimumSeverity: "high",
          filter: { namespaces: { include: ["team-a"] } },
        },
        teams: { name: "flaky", webhook: flaky.url, delivery: { retries: 3, backoffMs: 20 } },
        googleChat: {
          name: "hanging",
          webhook: hanging.url,
          delivery: { timeoutMs: 1000, retries: 1, backoffMs: 10 },
          filter: { namespaces: { include: ["team-a"] } },
        },
        discord: {
          name: "unreachable",
          webhook: "http://127.0.0.1:9/none",
          delivery: { retries: 1, backoffMs: 10 },
        },
      },
    });
    await reporter.synced;
    const targets = await (await fetch(`${reporter.url}/v1/targets`)).json();
    expect(targets).toEqual(
      expect.arrayContaining([
        { name: "Webhook", type: "webhook", minimumSeverity: "", sources: [], skipExistingOnStartup: true },
        { name: "Slack", type: "slack", minimumSeverity: "high", sources: [], skipExistingOnStartup: true },
        expect.objectContaining({ name: "flaky", type: "teams" }),
      ]),
    );

    const results = [
      liveResult({ policy: "require-labels", result: "fail", severity: "high" }),
      liveResult({ policy: "disallow-latest", result: "warn", severity: "medium" }),
      liveResult({ policy: "require-probes", result: "pass", severity: "high" }),
    ];
    const started = Date.now();
    await cluster.apply(policyReport({ name: "pod-web", namespace: "team-a", results }));

    // The healthy targets get theirs at once, while the hanging one is still timing out.
    const [first, second] = await webhook.waitFor(2);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(await hanging.waitFor(1)).toHaveLength(1);
    const timeoutsSoFar = await metricValues(reporter.metrics, METRIC_NAMES.notificationErrors);
    expect(timeoutsSoFar[JSON.stringify({ target: "hanging", code: "TIMEOUT" })]).toBeUndefined();
    expect([body(first as ReceivedRequest), body(second as ReceivedRequest)]).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          policy: "require-labels",
          status: "fail",
          severity: "high",
          properties: expect.objectContaining({ cluster: "e2e" }),
        }),
        expect.objectContaining({ policy: "disallow-latest", status: "warn" }),
      ]),
    );
    const [slackMessage] = await slack.waitFor(1);
    const attachments = (slackMessage?.json as { attachments?: unknown[] } | undefined)?.attachments;
    expect(attachments).toHaveLength(1); // minimumSeverity high: the medium warning is not sent
    expect(JSON.stringify(attachments)).toContain("require-labels");

    // The flaky target answers 500 twice: the batch is retried and delivered on the third attempt.
    await flaky.waitFor(3);
    // The hanging target times out and is retried once; the unreachable one fails fast.
    await eventually(
      async () => {
        const errors = await metricValues(reporter.metrics, METRIC_NAMES.notificationErrors);
        const at = (target: string, code: string) => errors[JSON.stringify({ target, code })] ?? 0;
        return (
          at("flaky", "HTTP_STATUS") === 2 &&
          at("hanging", "TIMEOUT") >= 2 &&
          at("unreachable", "NETWORK") >= 2
        );
      },
      5000,
      "delivery failures counted",
    );

    // The same report again: nothing new. Elsewhere, a namespace Slack does not watch.
    await cluster.apply(
      policyReport({ name: "pod-web", namespace: "team-a", results, labels: { touched: "yes" } }),
    );
    await cluster.apply(
      policyReport({
        name: "pod-api",
        namespace: "team-b",
        results: [liveResult({ policy: "require-labels" })],
      }),
    );
    await webhook.waitFor(3);
    await reporter.settled();
    expect(webhook.requests).toHaveLength(3);
    expect(slack.requests).toHaveLength(1);

    // The failure is fixed: the webhook (sendResolved) hears about it, Slack (not opted in) does not.
    await cluster.apply(
      policyReport({
        name: "pod-web",
        namespace: "team-a",
        results: [
          liveResult({ policy: "require-labels", result: "pass", severity: "high" }),
          ...results.slice(1),
        ],
      }),
    );
    const resolved = (await webhook.waitFor(4))[3] as ReceivedRequest;
    expect(body(resolved)).toMatchObject({ policy: "require-labels", status: "pass" });
    await reporter.settled();
    expect(slack.requests).toHaveLength(1);
  });

  it("two replicas sharing Redis send each notification once", async () => {
    const prefix = `reporter-e2e-${randomBytes(4).toString("hex")}`;
    const webhook = await receiver();
    const config = {
      redis: { enabled: true, address: "127.0.0.1:6379", prefix },
      target: { webhook: { webhook: webhook.url } },
    };
    const [a, b] = [await start(config), await start(config)];
    await Promise.all([a.synced, b.synced]);
    const results = [liveResult({ policy: "p1" }), liveResult({ policy: "p2", result: "error" })];
    await cluster.apply(policyReport({ name: "pod-db", namespace: "team-c", results }));
    await webhook.waitFor(2);
    await cluster.apply(
      policyReport({
        name: "pod-db",
        namespace: "team-c",
        results: [...results, liveResult({ policy: "p3" })],
      }),
    );
    await webhook.waitFor(3);
    await Promise.all([a.settled(), b.settled()]);
    await pause(100);
    expect(webhook.requests.map((r) => body(r).policy).sort()).toEqual(["p1", "p2", "p3"]);
    const redis = new Redis({ host: "127.0.0.1", port: 6379, lazyConnect: true });
    try {
      await redis.connect();
      const keys = await redis.keys(`${prefix}:*`);
      expect(keys.length).toBeGreaterThan(0);
      await redis.del(...keys);
    } finally {
      redis.disconnect();
    }
  });

  it("with leader election only the leader notifies, and a new leader takes over", async () => {
    const webhook = await receiver();
    const config = {
      leaderElection: {
        enabled: true,
        lockName: `reporter-e2e-${randomBytes(3).toString("hex")}`,
        leaseDuration: 3,
        renewDeadline: 2,
        retryPeriod: 1,
      },
      target: { webhook: { webhook: webhook.url } },
    };
    const a = await start({ ...config, leaderElection: { ...config.leaderElection, podName: "replica-a" } });
    const b = await start({ ...config, leaderElection: { ...config.leaderElection, podName: "replica-b" } });
    await Promise.all([a.synced, b.synced]);
    const leader = await eventually(
      () => (a.isLeader() ? a : b.isLeader() ? b : undefined),
      5000,
      "a leader",
    );
    const follower = leader === a ? b : a;
    expect(follower.isLeader()).toBe(false);

    await cluster.apply(
      policyReport({ name: "pod-x", namespace: "team-d", results: [liveResult({ policy: "first" })] }),
    );
    await webhook.waitFor(1);
    await Promise.all([a.settled(), b.settled()]);
    await pause(100);
    expect(webhook.requests).toHaveLength(1);

    await leader.stop();
    await eventually(() => follower.isLeader(), 5000, "the follower taking over");
    await cluster.apply(
      policyReport({
        name: "pod-x",
        namespace: "team-d",
        results: [liveResult({ policy: "first" }), liveResult({ policy: "second" })],
      }),
    );
    await webhook.waitFor(2);
    await follower.settled();
    await pause(100);
    // The follower kept its memory cache up to date: only the new failure is sent.
    expect(webhook.requests.map((r) => body(r).policy)).toEqual(["first", "second"]);
    // Both replicas served the API and metrics all along.
    expect((await fetch(`${follower.url}/v1/policy-reports`)).status).toBe(200);
  });
});
