import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createHttpClient } from "../delivery/http-client.js";
import { type Receiver, sampleResult, startReceiver, testDeps } from "../testing/receiver.js";
import type { HttpClient } from "../types.js";
import { createTelegramTarget, escapeMarkdownV2 } from "./telegram.js";

describe("Telegram target", () => {
  let receiver: Receiver;
  let http: HttpClient;
  beforeEach(async () => {
    receiver = await startReceiver(() => ({ status: 200, body: '{"ok":true}' }));
    http = createHttpClient();
  });
  afterEach(async () => {
    await http.close();
    await receiver.close();
  });

  it("escapes every MarkdownV2 reserved character", () => {
    expect(escapeMarkdownV2("a_b*c[d]e(f)g~h`i>j#k+l-m=n|o{p}q.r!s\\t")).toBe(
      "a\\_b\\*c\\[d\\]e\\(f\\)g\\~h\\`i\\>j\\#k\\+l\\-m\\=n\\|o\\{p\\}q\\.r\\!s\\\\t",
    );
  });

  it("posts sendMessage to the bot URL with chat_id, MarkdownV2 text and parse mode", async () => {
    const target = createTelegramTarget(
      { token: "123:ABC", chatId: "-100200", host: receiver.url, customFields: { cluster: "prod" } },
      testDeps(http),
    );
    await target.send(sampleResult({ properties: { owner: "me" } }));
    const [req] = await receiver.waitFor(1);
    expect(req?.path).toBe("/bot123:ABC/sendMessage");
    expect(req?.json).toEqual({
      chat_id: "-100200",
      parse_mode: "MarkdownV2",
      disable_web_page_preview: true,
      text: [
        "*\\[HIGH\\] require\\-labels*",
        "_New Policy Report Result_",
        "*Rule*: check\\-team",
        "*Status*: fail",
        "*Category*: Best Practices",
        "*Source*: kyverno",
        "*Resource*: default/pod/nginx",
        "*Time*: 2026\\-03\\-04T05:00:00\\.000Z",
        "",
        "*Message*:",
        "label 'team' is required",
        "",
        "*Properties*:",
        "• *owner*: me",
        "• *cluster*: prod",
      ].join("\n"),
    });
  });
});
