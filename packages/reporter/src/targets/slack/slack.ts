/**
 * Slack target (batch mode): incoming-webhook messages with one coloured attachment of blocks per result;
 * one message per scoped report with a header block.
 */
import { sendEach } from "../delivery/send-each.js";
import { createJsonSender } from "../delivery/sender.js";
import { chunk, eventTitle, resourceString, sortedEntries, titleCase, truncate } from "../format.js";
import type {
  BaseTargetOptions,
  NotifiableResult,
  ReportRef,
  SendContext,
  Severity,
  Target,
  TargetDeps,
} from "../types.js";

/** Options of the Slack target. */
export interface SlackOptions extends BaseTargetOptions {
  /** The incoming-webhook URL. */
  webhook: string;
  /** Overrides the webhook's default channel. */
  channel?: string;
}

/** A Slack text object. */
export interface SlackText {
  type: "mrkdwn" | "plain_text";
  text: string;
}

/** The Slack blocks this target uses. */
export type SlackBlock =
  | { type: "header"; text: SlackText }
  | { type: "section"; text: SlackText }
  | { type: "section"; fields: SlackText[] };

/** An attachment: a colour bar and blocks. */
export interface SlackAttachment {
  color: string;
  blocks: SlackBlock[];
}

/** The incoming-webhook body. */
export interface SlackPayload {
  channel?: string;
  blocks?: SlackBlock[];
  attachments: SlackAttachment[];
}

/** Attachment colour per severity, as upstream. */
export const SLACK_COLORS: Readonly<Record<Severity, string>> = {
  info: "#68c2ff",
  low: "#36a64f",
  medium: "#f2c744",
  high: "#b80707",
  critical: "#e20b0b",
};

/** Colour of a resolved result's attachment (green). */
export const SLACK_RESOLVED_COLOR = "#2eb886";

// Slack limits: 10 fields per section, 3000 characters per text, 2000 per field, 50 blocks per message.
const MAX_ATTACHMENTS = 20;

const md = (text: string): SlackText => ({ type: "mrkdwn", text: escapeMrkdwn(text) });
const field = (label: string, value: string): SlackText => ({
  type: "mrkdwn",
  text: `*${escapeMrkdwn(label)}*\n${truncate(escapeMrkdwn(value), 1900)}`,
});

/** Escapes the three characters Slack's mrkdwn requires escaped. */
export function escapeMrkdwn(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

/** Sections of at most ten fields each (none when `fields` is empty). */
function fieldSections(fields: SlackText[]): SlackBlock[] {
  return chunk(fields, 10).map((f) => ({ type: "section", fields: f }));
}

/**
 * Blocks of one result: the message in bold, Policy / Rule, Category / Severity, the resource (Kind, Name,
 * Namespace, API Version) and the properties; `extra` (custom fields) joins the properties.
 */
export function slackResultBlocks(
  result: NotifiableResult,
  extra: Readonly<Record<string, string>> | undefined,
): SlackBlock[] {
  const blocks: SlackBlock[] = [{ type: "section", text: md(`*${truncate(result.message, 2900)}*`) }];
  const policy = [field("Policy", result.policy)];
  if (result.rule) policy.push(field("Rule", result.rule));
  blocks.push({ type: "section", fields: policy });
  const meta: SlackText[] = [];
  if (result.category) meta.push(field("Category", result.category));
  if (result.severity) meta.push(field("Severity", result.severity));
  blocks.push(...fieldSections(meta));
  const res = result.resource;
  if (res !== undefined) {
    const resFields: SlackText[] = [];
    if (res.kind) resFields.push(field("Kind", res.kind));
    if (res.name) resFields.push(field("Name", res.name));
    if (res.namespace) resFields.push(field("Namespace", res.namespace));
    if (res.apiVersion) resFields.push(field("API Version", res.apiVersion));
    if (resFields.length > 0)
      blocks.push({ type: "section", text: md("*Resource*") }, ...fieldSections(resFields));
  }
  const props = [...sortedEntries(result.properties), ...sortedEntries(extra)].map(([k, v]) =>
    field(titleCase(k), v),
  );
  if (props.length > 0) blocks.push({ type: "section", text: md("*Properties*") }, ...fieldSections(props));
  return blocks;
}

function attachment(
  result: NotifiableResult,
  context: SendContext | undefined,
  extra?: Record<string, string>,
) {
  const color =
    context?.event === "resolved" ? SLACK_RESOLVED_COLOR : SLACK_COLORS[result.severity ?? "info"];
  return { color, blocks: slackResultBlocks(result, extra) };
}

/** The message of a single result: one attachment whose properties include the custom fields. */
export function slackPayload(
  result: NotifiableResult,
  options: Pick<SlackOptions, "channel" | "customFields">,
  context?: SendContext,
): SlackPayload {
  return {
    ...(options.channel ? { channel: options.channel } : {}),
    attachments: [attachment(result, context, { ...options.customFields })],
  };
}

/**
 * The message of a scoped report's results: a header block, "Received N new Policy Report Results",
 * the report's resource and the custom fields, then one attachment per result.
 */
export function slackBatchPayload(
  results: readonly NotifiableResult[],
  report: ReportRef & { scope: NonNullable<ReportRef["scope"]> },
  options: Pick<SlackOptions, "channel" | "customFields">,
  context?: SendContext,
): SlackPayload {
  const event = context?.event ?? "new";
  const blocks: SlackBlock[] = [
    { type: "header", text: { type: "plain_text", text: eventTitle(event, true) } },
    {
      type: "section",
      text: md(
        `Received ${results.length} ${event === "resolved" ? "resolved" : "new"} Policy Report Results`,
      ),
    },
  ];
  const resource = resourceString(report.scope);
  if (resource) blocks.push({ type: "section", fields: [field("Resource", resource)] });
  blocks.push(...fieldSections(sortedEntries(options.customFields).map(([k, v]) => field(titleCase(k), v))));
  return {
    ...(options.channel ? { channel: options.channel } : {}),
    blocks,
    attachments: results.map((r) => attachment(r, context)),
  };
}

/**
 * Creates the Slack target. `sendBatch` of a scoped report posts one message (chunks of 20 results);
 * results of a report without scope are posted one message each, as upstream.
 */
export function createSlackTarget(options: SlackOptions, deps: TargetDeps): Target {
  const name = options.name ?? "Slack";
  const post = createJsonSender(name, options.headers, options.delivery, deps);
  const send = async (result: NotifiableResult, context?: SendContext): Promise<void> => {
    await post({ url: options.webhook, payload: slackPayload(result, options, context) });
  };
  return {
    name,
    send,
    async sendBatch(results, context) {
      const report = context?.report;
      if (report?.scope === undefined) {
        await sendEach(results, (r) => send(r, context));
        return;
      }
      const scoped = { ...report, scope: report.scope };
      for (const part of chunk(results, MAX_ATTACHMENTS)) {
        await post({ url: options.webhook, payload: slackBatchPayload(part, scoped, options, context) });
      }
    },
  };
}
