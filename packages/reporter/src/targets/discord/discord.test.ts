import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createHttpClient } from "../delivery/http-client.js";
import { type Receiver, sampleResult, startReceiver, testDeps } from "../testing/receiver.js";
import type { HttpClient, Severity } from "../types.js";
import { createDiscordTarget, DISCORD_COLORS } from "./discord.js";

describe("Discord target", () => {
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

  it("posts one embed with upstream's fields, properties and custom fields, colour as an integer", async () => {
    const target = createDiscordTarget(
      { webhook: `${receiver.url}/api/webhooks/1/abc`, customFields: { cluster: "prod" } },
      testDeps(http),
    );
    await target.send(sampleResult({ properties: { "team-name": "a", owner: "me" } }));
    const [req] = await receiver.waitFor(1);
    expect(req?.method).toBe("POST");
    expect(req?.path).toBe("/api/webhooks/1/abc");
    expect(req?.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(req?.json).toEqual({
      content: "",
      embeds: [
        {
          title: "New Policy Report Result",
          description: "label 'team' is required",
          color: 15158332,
          fields: [
            { name: "Policy", value: "require-labels", inline: true },
            { name: "Rule", value: "check-team", inline: true },
            { name: "Category", value: "Best Practices", inline: true },
            { name: "Severity", value: "high", inline: true },
            { name: "Kind", value: "Pod", inline: true },
            { name: "Name", value: "nginx", inline: true },
            { name: "Namespace", value: "default", inline: true },
            { name: "API Version", value: "v1", inline: true },
            { name: "Owner", value: "me", inline: true },
            { name: "Team-Name", value: "a", inline: true },
            { name: "Cluster", value: "prod", inline: true },
          ],
        },
      ],
    });
    expect(req?.body).toContain('"color":15158332');
  });

  it.each<[Severity, number]>([
    ["info", 12370112],
    ["low", 3066993],
    ["medium", 15105570],
    ["high", 15158332],
    ["critical", 15158332],
  ])("colours %s results %i", async (severity, color) => {
    expect(DISCORD_COLORS[severity]).toBe(color);
    const target = createDiscordTarget({ webhook: receiver.url }, testDeps(http));
    await target.send(sampleResult({ severity }));
    const [req] = await receiver.waitFor(1);
    expect((req!.json as { embeds: { color: unknown }[] }).embeds[0]?.color).toBe(color);
  });

  it("sends a batch as one message per result (single mode) and omits empty fields", async () => {
    const target = createDiscordTarget({ webhook: receiver.url }, testDeps(http));
    const bare = sampleResult({
      id: "2",
      rule: "",
      category: "",
      resource: { kind: "Namespace", name: "x" },
    });
    await target.sendBatch([sampleResult(), bare]);
    const reqs = await receiver.waitFor(2);
    const fields = (reqs[1]!.json as { embeds: { fields: { name: string }[] }[] }).embeds[0]?.fields;
    expect(fields?.map((f) => f.name)).toEqual(["Policy", "Severity", "Kind", "Name"]);
  });

  it("marks a resolved result green with its status", async () => {
    const target = createDiscordTarget({ webhook: receiver.url }, testDeps(http));
    await target.send(sampleResult({ result: "pass", message: "ok" }), { event: "resolved" });
    const [req] = await receiver.waitFor(1);
    const embed = (req!.json as { embeds: { title: string; color: number; fields: { name: string }[] }[] })
      .embeds[0];
    expect(embed?.title).toBe("Resolved Policy Report Result");
    expect(embed?.color).toBe(3066993);
    expect(embed?.fields.map((f) => f.name)).toContain("Status");
  });
});
