/**
 * Google Chat target (single mode): a `cardsV2` message per result.
 */
import { sendEach } from "../delivery/send-each.js";
import { createJsonSender } from "../delivery/sender.js";
import { eventTitle, resourceString, sortedEntries, titleCase, truncate } from "../format.js";
import { resultPriority } from "../severity.js";
import type { BaseTargetOptions, NotifiableResult, SendContext, Target, TargetDeps } from "../types.js";

/** Options of the Google Chat target. */
export interface GoogleChatOptions extends BaseTargetOptions {
  /** The space's incoming-webhook URL. */
  webhook: string;
}

/** A card widget. */
export type GoogleChatWidget =
  | { textParagraph: { text: string } }
  | { decoratedText: { topLabel: string; text: string } };

/** A card section. */
export interface GoogleChatSection {
  header?: string;
  collapsible?: boolean;
  uncollapsibleWidgetsCount?: number;
  widgets: GoogleChatWidget[];
}

/** The webhook body. */
export interface GoogleChatPayload {
  cardsV2: {
    cardId: string;
    card: {
      header: { title: string; subtitle: string };
      sections: GoogleChatSection[];
    };
  }[];
}

/** Escapes text for Google Chat's HTML subset. */
export function escapeChatHtml(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

/**
 * The card of one result: header `[severity] policy` with the event as subtitle, the message, and a
 * collapsible "Details" section (status, rule, category, severity, source, resource, properties, custom
 * fields; the first three always shown).
 */
export function googleChatPayload(
  result: NotifiableResult,
  customFields: Readonly<Record<string, string>> | undefined,
  context?: SendContext,
): GoogleChatPayload {
  const details: GoogleChatWidget[] = [];
  const add = (label: string, value: string | undefined): void => {
    if (value)
      details.push({ decoratedText: { topLabel: label, text: escapeChatHtml(truncate(value, 1000)) } });
  };
  add("Status", result.result);
  add("Rule", result.rule);
  add("Category", result.category);
  add("Severity", result.severity);
  add("Source", result.source);
  add("Resource", resourceString(result.resource));
  add("API Version", result.resource?.apiVersion);
  for (const [k, v] of sortedEntries(result.properties)) add(titleCase(k), v);
  for (const [k, v] of sortedEntries(customFields)) add(titleCase(k), v);
  return {
    cardsV2: [
      {
        cardId: result.id,
        card: {
          header: {
            title: `[${result.severity ?? resultPriority(result)}] ${result.policy}`,
            subtitle: eventTitle(context?.event, false),
          },
          sections: [
            { widgets: [{ textParagraph: { text: escapeChatHtml(truncate(result.message, 4000)) } }] },
            { header: "Details", collapsible: true, uncollapsibleWidgetsCount: 3, widgets: details },
          ],
        },
      },
    ],
  };
}

/** Creates the Google Chat target: one message per result. */
export function createGoogleChatTarget(options: GoogleChatOptions, deps: TargetDeps): Target {
  const name = options.name ?? "GoogleChat";
  const post = createJsonSender(name, options.headers, options.delivery, deps);
  const send = async (result: NotifiableResult, context?: SendContext): Promise<void> => {
    await post({ url: options.webhook, payload: googleChatPayload(result, options.customFields, context) });
  };
  return { name, send, sendBatch: (results, context) => sendEach(results, (r) => send(r, context)) };
}
