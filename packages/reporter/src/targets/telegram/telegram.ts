/**
 * Telegram target (single mode): a MarkdownV2 message per result through the Bot API.
 */
import { sendEach } from "../delivery/send-each.js";
import { createJsonSender } from "../delivery/sender.js";
import { eventTitle, resourceString, sortedEntries, truncate } from "../format.js";
import { resultPriority } from "../severity.js";
import type { BaseTargetOptions, NotifiableResult, SendContext, Target, TargetDeps } from "../types.js";

/** Options of the Telegram target. */
export interface TelegramOptions extends BaseTargetOptions {
  /** Bot token. */
  token: string;
  chatId: string;
  /** Bot API host or proxy (default `https://api.telegram.org`). */
  host?: string;
}

/** The `sendMessage` body. */
export interface TelegramPayload {
  chat_id: string;
  text: string;
  parse_mode: "MarkdownV2";
  disable_web_page_preview: true;
}

/** The default Bot API host. */
export const TELEGRAM_HOST = "https://api.telegram.org";

/** Escapes text for MarkdownV2 (every reserved character gets a backslash). */
export function escapeMarkdownV2(text: string): string {
  return text.replace(/[_*[\]()~`>#+\-=|{}.!\\]/g, (c) => `\\${c}`);
}

/**
 * The message text of one result: bold `[SEVERITY] policy` heading, the event, Rule, Status, Category,
 * Source, Resource, Time, the message and the properties / custom fields as a list.
 */
export function telegramText(
  result: NotifiableResult,
  customFields: Readonly<Record<string, string>> | undefined,
  context: SendContext | undefined,
  now: Date,
): string {
  const e = escapeMarkdownV2;
  const level = (result.severity ?? resultPriority(result)).toUpperCase();
  const lines = [`*\\[${e(level)}\\] ${e(result.policy)}*`, `_${e(eventTitle(context?.event, false))}_`];
  const line = (label: string, value: string | undefined): void => {
    if (value) lines.push(`*${label}*: ${e(value)}`);
  };
  line("Rule", result.rule);
  line("Status", result.result);
  line("Category", result.category);
  line("Source", result.source);
  line("Resource", resourceString(result.resource));
  line("Time", new Date(result.timestamp ?? now.getTime()).toISOString());
  lines.push("", "*Message*:", e(truncate(result.message, 3000)));
  const props = [...sortedEntries(result.properties), ...sortedEntries(customFields)];
  if (props.length > 0) {
    lines.push("", "*Properties*:");
    for (const [k, v] of props) lines.push(`• *${e(k)}*: ${e(v)}`);
  }
  return lines.join("\n");
}

/** Creates the Telegram target: POST `<host>/bot<token>/sendMessage` per result. */
export function createTelegramTarget(options: TelegramOptions, deps: TargetDeps): Target {
  const name = options.name ?? "Telegram";
  const post = createJsonSender(name, options.headers, options.delivery, deps);
  const url = `${(options.host || TELEGRAM_HOST).replace(/\/+$/, "")}/bot${options.token}/sendMessage`;
  const send = async (result: NotifiableResult, context?: SendContext): Promise<void> => {
    const payload: TelegramPayload = {
      chat_id: options.chatId,
      text: telegramText(result, options.customFields, context, new Date(deps.clock.now())),
      parse_mode: "MarkdownV2",
      disable_web_page_preview: true,
    };
    await post({ url, payload });
  };
  return { name, send, sendBatch: (results, context) => sendEach(results, (r) => send(r, context)) };
}
