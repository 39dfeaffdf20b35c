/**
 * The target kinds, one spec each: display name, configuration keys (strings, booleans, enums,
 * structured keys), the keys that make a target usable, and how to build it. Everything else about a
 * kind — its config type, the loader's key lists, the keys a Secret may set, the build order — is
 * derived from this table, so adding a key or a kind is one edit here.
 */
import { createAlertManagerTarget } from "../alertmanager/alertmanager.js";
import { createDiscordTarget } from "../discord/discord.js";
import { createElasticsearchTarget, INDEX_ROTATIONS } from "../elasticsearch/elasticsearch.js";
import { createGoogleChatTarget } from "../google-chat/google-chat.js";
import { createLokiTarget } from "../loki/loki.js";
import { createSlackTarget } from "../slack/slack.js";
import { createTeamsTarget } from "../teams/teams.js";
import { createTelegramTarget } from "../telegram/telegram.js";
import { createWebhookTarget } from "../webhook/webhook.js";
import { keepaliveOptions, readKeepalive } from "./keepalive.js";
import { type AnyKindSpec, type ConfigOfSpec, defineKind } from "./kind-spec.js";

const s = (v: string | undefined): string => v ?? "";

/** The target kinds, in the order targets are built. */
export const TARGET_KINDS = {
  loki: defineKind({
    label: "Loki",
    strings: ["host", "path", "username", "password"],
    required: ["host"],
    create: (c, base, deps) =>
      createLokiTarget(
        { ...base, host: s(c.host), path: s(c.path), username: s(c.username), password: s(c.password) },
        deps,
      ),
  }),
  elasticsearch: defineKind({
    label: "Elasticsearch",
    strings: ["host", "index", "username", "password", "apiKey"],
    booleans: ["typelessApi"],
    enums: { rotation: INDEX_ROTATIONS },
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
  }),
  slack: defineKind({
    label: "Slack",
    strings: ["webhook", "channel"],
    required: ["webhook"],
    create: (c, base, deps) =>
      createSlackTarget({ ...base, webhook: s(c.webhook), channel: s(c.channel) }, deps),
  }),
  discord: defineKind({
    label: "Discord",
    strings: ["webhook"],
    required: ["webhook"],
    create: (c, base, deps) => createDiscordTarget({ ...base, webhook: s(c.webhook) }, deps),
  }),
  teams: defineKind({
    label: "Teams",
    strings: ["webhook"],
    required: ["webhook"],
    create: (c, base, deps) => createTeamsTarget({ ...base, webhook: s(c.webhook) }, deps),
  }),
  webhook: defineKind({
    label: "Webhook",
    strings: ["webhook"],
    objects: { keepalive: readKeepalive },
    required: ["webhook"],
    create: (c, base, deps) => createWebhookTarget({ ...base, webhook: s(c.webhook) }, deps),
    keepalive: keepaliveOptions,
  }),
  telegram: defineKind({
    label: "Telegram",
    strings: ["token", "chatId", "host"],
    required: ["token", "chatId"],
    create: (c, base, deps) =>
      createTelegramTarget({ ...base, token: s(c.token), chatId: s(c.chatId), host: s(c.host) }, deps),
  }),
  googleChat: defineKind({
    label: "GoogleChat",
    strings: ["webhook"],
    required: ["webhook"],
    create: (c, base, deps) => createGoogleChatTarget({ ...base, webhook: s(c.webhook) }, deps),
  }),
  alertManager: defineKind({
    label: "AlertManager",
    strings: ["host"],
    required: ["host"],
    create: (c, base, deps) => createAlertManagerTarget({ ...base, host: s(c.host) }, deps),
  }),
};

/** A configured target kind. */
export type TargetKind = keyof typeof TARGET_KINDS;

/** The `target:` block: each kind's configuration, typed from its spec. */
export type TargetsConfig = { [K in TargetKind]?: ConfigOfSpec<(typeof TARGET_KINDS)[K]> };

/** The supported target kinds, in build order. */
export const SUPPORTED_TARGET_KINDS = Object.keys(TARGET_KINDS) as TargetKind[];

/** The spec of `kind`, widened for code that handles every kind alike. */
export function kindSpec(kind: TargetKind): AnyKindSpec {
  return TARGET_KINDS[kind];
}

/** The keys a Secret (or mounted secret) may set on a target of `kind`: its strings and enums, and `certificate`. */
export function secretFields(kind: TargetKind): readonly string[] {
  const spec = kindSpec(kind);
  return [...spec.strings, ...Object.keys(spec.enums ?? {}), "certificate"];
}
