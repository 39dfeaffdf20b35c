/**
 * MS Teams target (batch mode): an Adaptive Card in a `message` envelope, the format Teams Workflows
 * ("Post to a channel when a webhook request is received") and legacy incoming webhooks accept.
 */
import { createJsonSender } from "../delivery/sender.js";
import { chunk, eventTitle, resourceString, sortedEntries, titleCase, truncate } from "../format.js";
import type {
  BaseTargetOptions,
  NotifiableResult,
  SendContext,
  Severity,
  Target,
  TargetDeps,
} from "../types.js";

/** Options of the MS Teams target. */
export interface TeamsOptions extends BaseTargetOptions {
  /** The Workflows (or incoming) webhook URL. */
  webhook: string;
}

/** An Adaptive Card fact. */
export interface AdaptiveFact {
  title: string;
  value: string;
}

/** The Adaptive Card elements this target uses. */
export type AdaptiveElement =
  | {
      type: "TextBlock";
      text: string;
      wrap: true;
      size?: "Large" | "Medium";
      weight?: "Bolder";
      isSubtle?: boolean;
    }
  | { type: "FactSet"; facts: AdaptiveFact[] }
  | {
      type: "Container";
      style: AdaptiveStyle;
      separator: true;
      spacing: "Medium";
      items: AdaptiveElement[];
    };

/** Container styles; the severity decides which. */
export type AdaptiveStyle = "default" | "emphasis" | "good" | "attention" | "warning" | "accent";

/** The webhook body. */
export interface TeamsPayload {
  type: "message";
  attachments: {
    contentType: "application/vnd.microsoft.card.adaptive";
    contentUrl: null;
    content: {
      $schema: "http://adaptivecards.io/schemas/adaptive-card.json";
      type: "AdaptiveCard";
      version: "1.4";
      body: AdaptiveElement[];
      msteams: { width: "Full" };
    };
  }[];
}

/** Container style per severity (`good` for resolved results). */
export const TEAMS_STYLES: Readonly<Record<Severity, AdaptiveStyle>> = {
  info: "accent",
  low: "accent",
  medium: "warning",
  high: "attention",
  critical: "attention",
};

// Teams rejects messages over ~28 KB: a card carries at most this many results.
const MAX_RESULTS_PER_CARD = 15;

const text = (
  t: string,
  extra: Partial<Extract<AdaptiveElement, { type: "TextBlock" }>> = {},
): AdaptiveElement => ({
  type: "TextBlock",
  text: t,
  wrap: true,
  ...extra,
});

/** One result as a container: policy as heading, facts, the message, then its properties. */
export function teamsResultContainer(result: NotifiableResult, context?: SendContext): AdaptiveElement {
  const facts: AdaptiveFact[] = [{ title: "Policy", value: result.policy }];
  if (result.rule) facts.push({ title: "Rule", value: result.rule });
  if (result.category) facts.push({ title: "Category", value: result.category });
  facts.push({ title: "Status", value: result.result });
  if (result.severity) facts.push({ title: "Severity", value: result.severity });
  const resource = resourceString(result.resource);
  if (resource) facts.push({ title: "Resource", value: resource });
  const items: AdaptiveElement[] = [
    text(result.policy, { weight: "Bolder" }),
    { type: "FactSet", facts },
    text(truncate(result.message, 2000)),
  ];
  const props = sortedEntries(result.properties).map(([k, v]) => ({ title: titleCase(k), value: v }));
  if (props.length > 0) items.push({ type: "FactSet", facts: props });
  const style =
    context?.event === "resolved" ? "good" : result.severity ? TEAMS_STYLES[result.severity] : "default";
  return { type: "Container", style, separator: true, spacing: "Medium", items };
}

/**
 * The card of a batch: title, "N new Policy Report Results" (with the report's resource when scoped), the
 * custom fields as facts, then one container per result.
 */
export function teamsPayload(
  results: readonly NotifiableResult[],
  customFields: Readonly<Record<string, string>> | undefined,
  context?: SendContext,
): TeamsPayload {
  const event = context?.event ?? "new";
  const scope = resourceString(context?.report?.scope);
  const body: AdaptiveElement[] = [
    text(eventTitle(event, results.length !== 1), { size: "Large", weight: "Bolder" }),
    text(
      `${results.length} ${event === "resolved" ? "resolved" : "new"} Policy Report ${results.length === 1 ? "Result" : "Results"}${scope ? ` for ${scope}` : ""}`,
      { isSubtle: true },
    ),
  ];
  const custom = sortedEntries(customFields).map(([k, v]) => ({ title: titleCase(k), value: v }));
  if (custom.length > 0) body.push({ type: "FactSet", facts: custom });
  for (const r of results) body.push(teamsResultContainer(r, context));
  return {
    type: "message",
    attachments: [
      {
        contentType: "application/vnd.microsoft.card.adaptive",
        contentUrl: null,
        content: {
          $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
          type: "AdaptiveCard",
          version: "1.4",
          body,
          msteams: { width: "Full" },
        },
      },
    ],
  };
}

/** Creates the MS Teams target: one card per batch (split into cards of 15 results). */
export function createTeamsTarget(options: TeamsOptions, deps: TargetDeps): Target {
  const name = options.name ?? "Teams";
  const post = createJsonSender(name, options.headers, options.delivery, deps);
  const sendBatch = async (results: readonly NotifiableResult[], context?: SendContext): Promise<void> => {
    for (const part of chunk(results, MAX_RESULTS_PER_CARD)) {
      await post({ url: options.webhook, payload: teamsPayload(part, options.customFields, context) });
    }
  };
  return { name, send: (result, context) => sendBatch([result], context), sendBatch };
}
