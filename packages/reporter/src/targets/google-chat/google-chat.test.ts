import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createHttpClient } from "../delivery/http-client.js";
import { type Receiver, sampleResult, startReceiver, testDeps } from "../testing/receiver.js";
import type { HttpClient } from "../types.js";
import { createGoogleChatTarget } from "./google-chat.js";

describe("Google Chat target", () => {
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

  it("posts a cardsV2 card with a [severity] policy header and a collapsible details section", async () => {
    const target = createGoogleChatTarget(
      { webhook: `${receiver.url}/v1/spaces/X/messages?key=k`, customFields: { cluster: "prod" } },
      testDeps(http),
    );
    await target.send(sampleResult({ message: "needs <team>", properties: { owner: "me" } }));
    const [req] = await receiver.waitFor(1);
    expect(req?.path).toBe("/v1/spaces/X/messages?key=k");
    const details = (label: string, text: string) => ({ decoratedText: { topLabel: label, text } });
    expect(req?.json).toEqual({
      cardsV2: [
        {
          cardId: "123",
          card: {
            header: { title: "[high] require-labels", subtitle: "New Policy Report Result" },
            sections: [
              { widgets: [{ textParagraph: { text: "needs &lt;team&gt;" } }] },
              {
                header: "Details",
                collapsible: true,
                uncollapsibleWidgetsCount: 3,
                widgets: [
                  details("Status", "fail"),
                  details("Rule", "check-team"),
                  details("Category", "Best Practices"),
                  details("Severity", "high"),
                  details("Source", "kyverno"),
                  details("Resource", "default/pod/nginx"),
                  details("API Version", "v1"),
                  details("Owner", "me"),
                  details("Cluster", "prod"),
                ],
              },
            ],
          },
        },
      ],
    });
  });

  it("uses the priority in the header when a result has no severity, and sends batches one card each", async () => {
    const target = createGoogleChatTarget({ webhook: receiver.url }, testDeps(http));
    await target.sendBatch([sampleResult({ severity: undefined }), sampleResult({ id: "2" })]);
    const reqs = await receiver.waitFor(2);
    const title = (i: number) =>
      (reqs[i]!.json as { cardsV2: { card: { header: { title: string } } }[] }).cardsV2[0]?.card.header.title;
    expect(title(0)).toBe("[warning] require-labels");
    expect(title(1)).toBe("[high] require-labels");
  });
});
