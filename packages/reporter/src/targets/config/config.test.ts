import { afterEach, describe, expect, it } from "vitest";
import type { DiscordPayload } from "../discord/discord.js";
import type { SlackPayload } from "../slack/slack.js";
import {
  NOW,
  type Receiver,
  sampleResult,
  startReceiver,
  testClock,
  testLogger,
} from "../testing/receiver.js";
import type { HttpClient } from "../types.js";
import { createTargetsFromConfig, inheritChannel, type TargetSet } from "./config.js";
import { TargetConfigError } from "./errors.js";
import { keepaliveIntervalMs } from "./keepalive.js";

const deps = () => ({ clock: testClock(), logger: testLogger() });

describe("createTargetsFromConfig", () => {
  const receivers: Receiver[] = [];
  let set: TargetSet | undefined;
  const receiver = async () => {
    const r = await startReceiver();
    receivers.push(r);
    return r;
  };
  afterEach(async () => {
    await set?.close();
    set = undefined;
    await Promise.all(receivers.splice(0).map((r) => r.close()));
  });

  it("builds parents and channels; channels inherit the webhook and minimum severity, not the filter", async () => {
    const main = await receiver();
    const team = await receiver();
    set = createTargetsFromConfig(
      {
        discord: {
          webhook: main.url,
          minimumSeverity: "medium",
          sources: ["kyverno"],
          filter: { namespaces: { exclude: ["team-*"] } },
          customFields: { cluster: "prod" },
          channels: [
            { filter: { namespaces: { include: ["team-a"] } } },
            { webhook: team.url, name: "team-b", minimumSeverity: "critical", sendResolved: true },
          ],
        },
      },
      deps(),
    );
    expect(set.descriptions.map((d) => [d.name, d.parent, d.minimumSeverity, d.sendResolved])).toEqual([
      ["Discord", undefined, "medium", false],
      ["Discord Channel 1", "Discord", "medium", false],
      ["team-b", "Discord", "critical", true],
    ]);
    expect(set.descriptions[1]?.customFields).toEqual({});
    const [parent, channel1, channel2] = set.bindings.map((b) => b.target);
    const results = [
      sampleResult({ id: "default-high", resource: { kind: "Pod", name: "a", namespace: "default" } }),
      sampleResult({ id: "team-a-high", resource: { kind: "Pod", name: "b", namespace: "team-a" } }),
      sampleResult({ id: "team-a-low", severity: "low", resource: { kind: "Pod", namespace: "team-a" } }),
      sampleResult({ id: "team-a-trivy", source: "trivy", resource: { kind: "Pod", namespace: "team-a" } }),
      sampleResult({
        id: "team-b-critical",
        severity: "critical",
        resource: { kind: "Pod", namespace: "team-b" },
      }),
    ];
    await parent?.sendBatch(results);
    await channel1?.sendBatch(results);
    await channel2?.sendBatch(results);
    // The parent's filter excludes team-* namespaces; channel 1 (inheriting webhook, minimum severity and
    // sources) takes team-a only; channel 2 posts critical results to its own webhook.
    const names = (r: Receiver) =>
      r.requests.map(
        (q) => (q.json as DiscordPayload).embeds[0]?.fields.find((f) => f.name === "Name")?.value,
      );
    expect(main.requests).toHaveLength(2);
    expect(names(main)).toEqual(["a", "b"]);
    const fields = (main.requests[0]!.json as DiscordPayload).embeds[0]?.fields.map((f) => f.name);
    expect(fields).toContain("Cluster");
    expect((main.requests[1]!.json as DiscordPayload).embeds[0]?.fields.map((f) => f.name)).not.toContain(
      "Cluster",
    );
    expect(team.requests).toHaveLength(1);
    expect((team.requests[0]!.json as DiscordPayload).embeds[0]?.color).toBe(15158332);
  });

  it("builds channels of a parent without endpoint, and each kind with its default name and mode", async () => {
    const r = await receiver();
    set = createTargetsFromConfig(
      {
        slack: { channels: [{ webhook: r.url, channel: "#a" }] },
        loki: { host: r.url, skipExistingOnStartup: false },
        teams: { webhook: "" },
      },
      deps(),
    );
    expect(set.descriptions.map((d) => [d.kind, d.name, d.skipExistingOnStartup])).toEqual([
      ["loki", "Loki", false],
      ["slack", "Slack Channel 1", true],
    ]);
    await set.bindings[1]?.target.send(sampleResult());
    const [req] = await r.waitFor(1);
    expect((req!.json as SlackPayload).channel).toBe("#a");
  });

  it("shares one HTTP client per TLS setting and closes them", async () => {
    const made: string[] = [];
    const fake = (o: object): HttpClient => {
      made.push(JSON.stringify(o));
      return { request: async () => ({ status: 200, headers: {}, body: "" }), close: async () => {} };
    };
    set = createTargetsFromConfig(
      {
        discord: { webhook: "http://a", channels: [{ webhook: "http://b", skipTLS: true }] },
        slack: { webhook: "http://c" },
      },
      { ...deps(), httpClient: fake },
    );
    expect(made).toEqual(["{}", '{"skipTLS":true}']);
  });

  it("refuses an invalid minimum severity, rotation or keepalive with the key path", () => {
    expect(() =>
      createTargetsFromConfig({ slack: { webhook: "http://x", minimumSeverity: "urgent" } }, deps()),
    ).toThrow(TargetConfigError);
    try {
      createTargetsFromConfig(
        { discord: { webhook: "http://x", channels: [{ minimumSeverity: "nope" }] } },
        deps(),
      );
    } catch (e) {
      expect((e as TargetConfigError).path).toBe("target.discord.channels[0].minimumSeverity");
    }
    expect(() =>
      createTargetsFromConfig(
        { elasticsearch: { host: "http://x", rotation: "weekly" as unknown as "daily" } },
        deps(),
      ),
    ).toThrow("target.elasticsearch.rotation");
    expect(() =>
      createTargetsFromConfig({ webhook: { webhook: "http://x", keepalive: { interval: "soon" } } }, deps()),
    ).toThrow("target.webhook.keepalive.interval");
  });

  it("accepts legacy priorities as minimum severity", () => {
    set = createTargetsFromConfig(
      {
        discord: { webhook: "http://x", minimumPriority: "warning" },
        slack: { webhook: "http://y", minimumSeverity: "debug" },
      },
      deps(),
    );
    expect(set.descriptions.map((d) => [d.name, d.minimumSeverity])).toEqual([
      ["Slack", undefined],
      ["Discord", "medium"],
    ]);
  });

  it("starts webhook keepalives only on start()", async () => {
    const r = await receiver();
    const clock = testClock(NOW, true);
    set = createTargetsFromConfig(
      { webhook: { webhook: r.url, keepalive: { interval: "1h" } } },
      { clock, logger: testLogger() },
    );
    await new Promise((res) => setTimeout(res, 30));
    expect(r.requests).toHaveLength(0);
    set.start();
    const [hb] = await r.waitFor(1);
    expect(hb?.json).toMatchObject({ type: "heartbeat" });
    await new Promise((res) => setTimeout(res, 30));
    expect(r.requests).toHaveLength(1);
    expect(clock.sleeps).toEqual([3_600_000]);
    // close() aborts the hour-long wait at once.
  });
});

describe("inheritChannel and keepaliveIntervalMs", () => {
  it("falls back to the parent for unset, empty and [] values", () => {
    const merged = inheritChannel(
      { webhook: "p", sources: ["kyverno"], headers: { a: "1" }, filter: { status: { include: ["fail"] } } },
      { webhook: "", sources: [], name: "c" },
    );
    expect(merged).toEqual({ webhook: "p", sources: ["kyverno"], headers: { a: "1" }, name: "c" });
  });

  it("parses Go durations", () => {
    expect(keepaliveIntervalMs("30s")).toBe(30_000);
    expect(keepaliveIntervalMs("1m30s")).toBe(90_000);
    expect(keepaliveIntervalMs("250ms")).toBe(250);
    expect(keepaliveIntervalMs("0")).toBe(0);
    expect(keepaliveIntervalMs(5)).toBe(5);
    expect(keepaliveIntervalMs("5 minutes")).toBeUndefined();
  });
});
