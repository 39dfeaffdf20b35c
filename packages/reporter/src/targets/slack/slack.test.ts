import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createHttpClient } from "../delivery/http-client.js";
import { type Receiver, sampleResult, startReceiver, testDeps } from "../testing/receiver.js";
import type { HttpClient, ReportRef } from "../types.js";
import { createSlackTarget, type SlackPayload } from "./slack.js";

const report: ReportRef = {
  name: "pod-nginx",
  namespace: "default",
  scope: { apiVersion: "v1", kind: "Pod", name: "nginx", namespace: "default" },
};

describe("Slack target", () => {
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

  it("sends a single result as one attachment of blocks, custom fields among the properties", async () => {
    const target = createSlackTarget(
      { webhook: `${receiver.url}/services/T/B/X`, channel: "#alerts", customFields: { cluster: "prod" } },
      testDeps(http),
    );
    await target.send(sampleResult({ message: "a <b> & c", properties: { owner: "me" } }));
    const [req] = await receiver.waitFor(1);
    expect(req?.path).toBe("/services/T/B/X");
    expect(req?.json).toEqual({
      channel: "#alerts",
      attachments: [
        {
          color: "#b80707",
          blocks: [
            { type: "section", text: { type: "mrkdwn", text: "*a &lt;b&gt; &amp; c*" } },
            {
              type: "section",
              fields: [
                { type: "mrkdwn", text: "*Policy*\nrequire-labels" },
                { type: "mrkdwn", text: "*Rule*\ncheck-team" },
              ],
            },
            {
              type: "section",
              fields: [
                { type: "mrkdwn", text: "*Category*\nBest Practices" },
                { type: "mrkdwn", text: "*Severity*\nhigh" },
              ],
            },
            { type: "section", text: { type: "mrkdwn", text: "*Resource*" } },
            {
              type: "section",
              fields: [
                { type: "mrkdwn", text: "*Kind*\nPod" },
                { type: "mrkdwn", text: "*Name*\nnginx" },
                { type: "mrkdwn", text: "*Namespace*\ndefault" },
                { type: "mrkdwn", text: "*API Version*\nv1" },
              ],
            },
            { type: "section", text: { type: "mrkdwn", text: "*Properties*" } },
            {
              type: "section",
              fields: [
                { type: "mrkdwn", text: "*Owner*\nme" },
                { type: "mrkdwn", text: "*Cluster*\nprod" },
              ],
            },
          ],
        },
      ],
    });
  });

  it("batches a scoped report into one message: header, count, resource, custom fields, one attachment per result", async () => {
    const target = createSlackTarget(
      { webhook: receiver.url, customFields: { cluster: "prod" } },
      testDeps(http),
    );
    const results = (["info", "low", "medium", "high", "critical"] as const).map((severity, i) =>
      sampleResult({ id: String(i), severity }),
    );
    await target.sendBatch(results, { event: "new", report });
    await new Promise((r) => setTimeout(r, 50));
    expect(receiver.requests).toHaveLength(1);
    const body = receiver.requests[0]?.json as SlackPayload;
    expect(body.channel).toBeUndefined();
    expect(body.blocks).toEqual([
      { type: "header", text: { type: "plain_text", text: "New Policy Report Results" } },
      { type: "section", text: { type: "mrkdwn", text: "Received 5 new Policy Report Results" } },
      { type: "section", fields: [{ type: "mrkdwn", text: "*Resource*\ndefault/pod/nginx" }] },
      { type: "section", fields: [{ type: "mrkdwn", text: "*Cluster*\nprod" }] },
    ]);
    expect(body.attachments.map((a) => a.color)).toEqual([
      "#68c2ff",
      "#36a64f",
      "#f2c744",
      "#b80707",
      "#e20b0b",
    ]);
    // In a batch the custom fields are in the header, not in each attachment.
    expect(JSON.stringify(body.attachments)).not.toContain("Cluster");
  });

  it("sends the results of a report without scope one message each", async () => {
    const target = createSlackTarget({ webhook: receiver.url }, testDeps(http));
    await target.sendBatch([sampleResult({ id: "1" }), sampleResult({ id: "2" })], {
      report: { name: "cluster-report" },
    });
    const reqs = await receiver.waitFor(2);
    expect(reqs.every((r) => (r.json as SlackPayload).blocks === undefined)).toBe(true);
  });

  it("splits large batches into messages of 20 attachments", async () => {
    const target = createSlackTarget({ webhook: receiver.url }, testDeps(http));
    const results = Array.from({ length: 45 }, (_, i) => sampleResult({ id: String(i) }));
    await target.sendBatch(results, { report });
    const reqs = await receiver.waitFor(3);
    expect(reqs.map((r) => (r.json as SlackPayload).attachments.length)).toEqual([20, 20, 5]);
  });

  it("titles resolved batches and colours them green", async () => {
    const target = createSlackTarget({ webhook: receiver.url }, testDeps(http));
    await target.sendBatch([sampleResult({ result: "pass" })], { event: "resolved", report });
    const [req] = await receiver.waitFor(1);
    const body = req?.json as SlackPayload;
    expect(body.blocks?.[0]).toEqual({
      type: "header",
      text: { type: "plain_text", text: "Resolved Policy Report Results" },
    });
    expect(body.blocks?.[1]).toEqual({
      type: "section",
      text: { type: "mrkdwn", text: "Received 1 resolved Policy Report Results" },
    });
    expect(body.attachments[0]?.color).toBe("#2eb886");
  });
});
