/**
 * One entry per target kind: its display name, whether a configuration has an endpoint, and how to
 * build the target from a (channel-merged) configuration.
 */
import { createAlertManagerTarget } from "../alertmanager/alertmanager.js";
import { createDiscordTarget } from "../discord/discord.js";
import { createElasticsearchTarget } from "../elasticsearch/elasticsearch.js";
import { createGoogleChatTarget } from "../google-chat/google-chat.js";
import { createLokiTarget } from "../loki/loki.js";
import { createSlackTarget } from "../slack/slack.js";
import { createTeamsTarget } from "../teams/teams.js";
import { createTelegramTarget } from "../telegram/telegram.js";
import type { BaseTargetOptions, Target, TargetDeps } from "../types.js";
import { createWebhookTarget } from "../webhook/webhook.js";
import type { CommonTargetConfig, TargetKind, TargetsConfig } from "./config-types.js";

/** How to build one kind of target. */
export interface KindSpec<C extends CommonTargetConfig> {
  /** Default name of the parent target. */
  label: string;
  /** The configuration keys that make a target usable (all must be set). */
  required: readonly (keyof C & string)[];
  create(config: C, base: BaseTargetOptions & { name: string }, deps: TargetDeps): Target;
}

type Specs = { [K in TargetKind]-?: KindSpec<NonNullable<TargetsConfig[K]>> };

const s = (v: string | undefined): string => v ?? "";

/** The target kinds, in the order targets are built. */
export const TARGET_KINDS: Specs = {
  loki: {
    label: "Loki",
    required: ["host"],
    create: (c, base, deps) =>
      createLokiTarget(
        { ...base, host: s(c.host), path: s(c.path), username: s(c.username), password: s(c.password) },
        deps,
      ),
  },
  elasticsearch: {
    label: "Elasticsearch",
    required: ["host"],
    create: (c, base, deps) =>
      createElasticsearchTarget(
        {
          ...base,
          host: s(c.host),
          index: s(c.index),
          rotation: c.rotation ?? "daily",
          typelessApi: c.typelessApi ?? false,
          username: s(c.username),
          password: s(c.password),
          apiKey: s(c.apiKey),
        },
        deps,
      ),
  },
  slack: {
    label: "Slack",
    required: ["webhook"],
    create: (c, base, deps) =>
      createSlackTarget({ ...base, webhook: s(c.webhook), channel: s(c.channel) }, deps),
  },
  discord: {
    label: "Discord",
    required: ["webhook"],
    create: (c, base, deps) => createDiscordTarget({ ...base, webhook: s(c.webhook) }, deps),
  },
  teams: {
    label: "Teams",
    required: ["webhook"],
    create: (c, base, deps) => createTeamsTarget({ ...base, webhook: s(c.webhook) }, deps),
  },
  webhook: {
    label: "Webhook",
    required: ["webhook"],
    create: (c, base, deps) => createWebhookTarget({ ...base, webhook: s(c.webhook) }, deps),
  },
  telegram: {
    label: "Telegram",
    required: ["token", "chatId"],
    create: (c, base, deps) =>
      createTelegramTarget({ ...base, token: s(c.token), chatId: s(c.chatId), host: s(c.host) }, deps),
  },
  googleChat: {
    label: "GoogleChat",
    required: ["webhook"],
    create: (c, base, deps) => createGoogleChatTarget({ ...base, webhook: s(c.webhook) }, deps),
  },
  alertManager: {
    label: "AlertManager",
    required: ["host"],
    create: (c, base, deps) => createAlertManagerTarget({ ...base, host: s(c.host) }, deps),
  },
};

/** Parses a Go duration ("30s", "1m30s", "500ms", "0") or a number of milliseconds; undefined if invalid. */
export function parseDuration(value: string | number | undefined): number | undefined {
  if (value === undefined) return 0;
  if (typeof value === "number") return Number.isFinite(value) && value >= 0 ? value : undefined;
  const v = value.trim();
  if (v === "" || v === "0") return 0;
  const unit: Record<string, number> = {
    ns: 1e-6,
    us: 1e-3,
    µs: 1e-3,
    ms: 1,
    s: 1000,
    m: 60_000,
    h: 3_600_000,
  };
  let total = 0;
  let rest = v;
  while (rest.length > 0) {
    const m = /^(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/.exec(rest);
    if (m === null) return undefined;
    total += Number(m[1]) * (unit[m[2] ?? ""] ?? 0);
    rest = rest.slice(m[0].length);
  }
  return total;
}
