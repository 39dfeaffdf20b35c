import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createHttpClient } from "../delivery/http-client.js";
import { type Receiver, sampleResult, startReceiver, testDeps } from "../testing/receiver.js";
import type { HttpClient } from "../types.js";
import { createTeamsTarget, type TeamsPayload } from "./teams.js";

describe("MS Teams target", () => {
  let receiver: Receiver;
  let http: HttpClient;
  beforeEach(async () => {
    receiver = await startReceiver(() => ({ status: 202 }));
    http = createHttpClient();
  });
  afterEach(async () => {
    await http.close();
    await receiver.close();
  });

  it("posts one Adaptive Card per batch in a message envelope", async () => {
    const target = createTeamsTarget(
      { webhook: `${receiver.url}/workflows/x`, customFields: { cluster: "prod" } },
      testDeps(http),
    );
    await target.sendBatch(
      [
        sampleResult({ properties: { owner: "me" } }),
        sampleResult({ id: "2", severity: "medium", rule: "", category: "", resource: undefined }),
      ],
      { report: { name: "r", scope: { kind: "Pod", name: "nginx", namespace: "default" } } },
    );
    const [req] = await receiver.waitFor(1);
    expect(req?.json).toEqual({
      type: "message",
      attachments: [
        {
          contentType: "application/vnd.microsoft.card.adaptive",
          contentUrl: null,
          content: {
            $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
            type: "AdaptiveCard",
            version: "1.4",
            msteams: { width: "Full" },
            body: [
              {
                type: "TextBlock",
                text: "New Policy Report Results",
                wrap: true,
                size: "Large",
                weight: "Bolder",
              },
              {
                type: "TextBlock",
                text: "2 new Policy Report Results for default/pod/nginx",
                wrap: true,
                isSubtle: true,
              },
              { type: "FactSet", facts: [{ title: "Cluster", value: "prod" }] },
              {
                type: "Container",
                style: "attention",
                separator: true,
                spacing: "Medium",
                items: [
                  { type: "TextBlock", text: "require-labels", wrap: true, weight: "Bolder" },
                  {
                    type: "FactSet",
                    facts: [
                      { title: "Policy", value: "require-labels" },
                      { title: "Rule", value: "check-team" },
                      { title: "Category", value: "Best Practices" },
                      { title: "Status", value: "fail" },
                      { title: "Severity", value: "high" },
                      { title: "Resource", value: "default/pod/nginx" },
                    ],
                  },
                  { type: "TextBlock", text: "label 'team' is required", wrap: true },
                  { type: "FactSet", facts: [{ title: "Owner", value: "me" }] },
                ],
              },
              {
                type: "Container",
                style: "warning",
                separator: true,
                spacing: "Medium",
                items: [
                  { type: "TextBlock", text: "require-labels", wrap: true, weight: "Bolder" },
                  {
                    type: "FactSet",
                    facts: [
                      { title: "Policy", value: "require-labels" },
                      { title: "Status", value: "fail" },
                      { title: "Severity", value: "medium" },
                    ],
                  },
                  { type: "TextBlock", text: "label 'team' is required", wrap: true },
                ],
              },
            ],
          },
        },
      ],
    });
  });

  it("sends a single result as a one-result card, resolved ones in the good style", async () => {
    const target = createTeamsTarget({ webhook: receiver.url }, testDeps(http));
    await target.send(sampleResult({ result: "pass" }), { event: "resolved" });
    const [req] = await receiver.waitFor(1);
    const body = (req!.json as TeamsPayload).attachments[0]?.content.body;
    expect(body?.[0]).toMatchObject({ text: "Resolved Policy Report Result" });
    expect(body?.[1]).toMatchObject({ text: "1 resolved Policy Report Result" });
    expect(body?.[2]).toMatchObject({ type: "Container", style: "good" });
  });

  it("splits big batches into cards of 15 results", async () => {
    const target = createTeamsTarget({ webhook: receiver.url }, testDeps(http));
    await target.sendBatch(Array.from({ length: 16 }, (_, i) => sampleResult({ id: String(i) })));
    const reqs = await receiver.waitFor(2);
    const containers = reqs.map(
      (r) =>
        (r.json as TeamsPayload).attachments[0]?.content.body.filter((e) => e.type === "Container").length,
    );
    expect(containers).toEqual([15, 1]);
  });
});
