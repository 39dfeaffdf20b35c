/**
 * Discord target (single mode): one webhook message with one embed per result.
 */
import { sendEach } from "../delivery/send-each.js";
import { createJsonSender } from "../delivery/sender.js";
import { eventTitle, sortedEntries, titleCase, truncate } from "../format.js";
import type {
  BaseTargetOptions,
  NotifiableResult,
  SendContext,
  Severity,
  Target,
  TargetDeps,
} from "../types.js";

/** Options of the Discord target. */
export interface DiscordOptions extends BaseTargetOptions {
  /** The Discord webhook URL. */
  webhook: string;
}

/** A Discord embed field. */
export interface DiscordField {
  name: string;
  value: string;
  inline: boolean;
}

/** The Discord webhook body. */
export interface DiscordPayload {
  content: string;
  embeds: {
    title: string;
    description: string;
    /** An integer: Discord rejects or ignores string colours. */
    color: number;
    fields: DiscordField[];
  }[];
}

/** Embed colour per severity, as upstream (green for resolved results). */
export const DISCORD_COLORS: Readonly<Record<Severity, number>> = {
  info: 12370112,
  low: 3066993,
  medium: 15105570,
  high: 15158332,
  critical: 15158332,
};

/** Colour of a resolved result's embed (green). */
export const DISCORD_RESOLVED_COLOR = 3066993;

// Discord limits: 25 fields per embed, 4096 characters of description, 1024 per field value.
const MAX_FIELDS = 25;

/**
 * Builds the Discord payload of one result: title, message as description, colour by severity and
 * inline fields Policy, Rule, Category, Severity, Kind, Name, Namespace, API Version, then the
 * properties and custom fields sorted by key.
 */
export function discordPayload(
  result: NotifiableResult,
  customFields: Readonly<Record<string, string>> | undefined,
  context?: SendContext,
): DiscordPayload {
  const fields: DiscordField[] = [];
  const add = (name: string, value: string | undefined): void => {
    if (value) fields.push({ name, value: truncate(value, 1024), inline: true });
  };
  add("Policy", result.policy);
  add("Rule", result.rule);
  add("Category", result.category);
  add("Severity", result.severity);
  if (context?.event === "resolved") add("Status", result.result);
  const res = result.resource;
  if (res !== undefined) {
    add("Kind", res.kind);
    add("Name", res.name);
    add("Namespace", res.namespace);
    add("API Version", res.apiVersion);
  }
  for (const [k, v] of sortedEntries(result.properties)) add(titleCase(k), v);
  for (const [k, v] of sortedEntries(customFields)) add(titleCase(k), v);
  const resolved = context?.event === "resolved";
  return {
    content: "",
    embeds: [
      {
        title: eventTitle(context?.event, false),
        description: truncate(result.message, 4096),
        color: resolved ? DISCORD_RESOLVED_COLOR : DISCORD_COLORS[result.severity ?? "info"],
        fields: fields.slice(0, MAX_FIELDS),
      },
    ],
  };
}

/** Creates the Discord target: `sendBatch` posts one message per result, in order. */
export function createDiscordTarget(options: DiscordOptions, deps: TargetDeps): Target {
  const name = options.name ?? "Discord";
  const post = createJsonSender(name, options.headers, options.delivery, deps);
  const send = async (result: NotifiableResult, context?: SendContext): Promise<void> => {
    await post({ url: options.webhook, payload: discordPayload(result, options.customFields, context) });
  };
  return { name, send, sendBatch: (results, context) => sendEach(results, (r) => send(r, context)) };
}
