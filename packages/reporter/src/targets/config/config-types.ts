/**
 * The `target:` configuration types, keys as in Policy Reporter's Helm values. Each kind's type is
 * derived from its spec in `kinds.ts`. Secrets (`secretRef`, `mountedSecret`) are resolved into these
 * fields by the configuration loader before targets are built.
 */
import type { ConfigOfSpec } from "./kind-spec.js";
import type { TARGET_KINDS } from "./kinds.js";

export type { CommonTargetConfig } from "./kind-spec.js";
export type { TargetKind, TargetsConfig } from "./kinds.js";

type Kinds = typeof TARGET_KINDS;

/** `target.discord`. */
export type DiscordConfig = ConfigOfSpec<Kinds["discord"]>;
/** `target.slack`. */
export type SlackConfig = ConfigOfSpec<Kinds["slack"]>;
/** `target.teams`. */
export type TeamsConfig = ConfigOfSpec<Kinds["teams"]>;
/** `target.webhook`. */
export type WebhookConfig = ConfigOfSpec<Kinds["webhook"]>;
/** `target.loki`. */
export type LokiConfig = ConfigOfSpec<Kinds["loki"]>;
/** `target.elasticsearch`. */
export type ElasticsearchConfig = ConfigOfSpec<Kinds["elasticsearch"]>;
/** `target.telegram`. */
export type TelegramConfig = ConfigOfSpec<Kinds["telegram"]>;
/** `target.googleChat`. */
export type GoogleChatConfig = ConfigOfSpec<Kinds["googleChat"]>;
/** `target.alertManager`. */
export type AlertManagerConfig = ConfigOfSpec<Kinds["alertManager"]>;
