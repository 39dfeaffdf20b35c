/**
 * Notification targets: the result and target contract, one factory per target, filtering by wrapping,
 * delivery (HTTP client, retries, per-target queue) and building targets from the `target:` configuration.
 */

export type { AlertManagerAlert, AlertManagerOptions } from "./alertmanager/alertmanager.js";
export { alertManagerAlert, createAlertManagerTarget } from "./alertmanager/alertmanager.js";
export type { TargetDescription, TargetSet, TargetsFromConfigDeps } from "./config/config.js";
export { createTargetsFromConfig, inheritChannel } from "./config/config.js";
export type {
  AlertManagerConfig,
  CommonTargetConfig,
  DiscordConfig,
  ElasticsearchConfig,
  GoogleChatConfig,
  LokiConfig,
  SlackConfig,
  TargetKind,
  TargetsConfig,
  TeamsConfig,
  TelegramConfig,
  WebhookConfig,
} from "./config/config-types.js";
export { TargetConfigError } from "./config/errors.js";
export { DeliveryError, isDeliveryError } from "./delivery/errors.js";
export type { HttpClientOptions } from "./delivery/http-client.js";
export { createHttpClient } from "./delivery/http-client.js";
export type { DeliveryQueueDeps, DeliveryQueueOptions, QueuedTarget } from "./delivery/queue.js";
export { createDeliveryQueue } from "./delivery/queue.js";
export { DEFAULT_DELIVERY, USER_AGENT } from "./delivery/sender.js";
export type { DiscordOptions, DiscordPayload } from "./discord/discord.js";
export {
  createDiscordTarget,
  DISCORD_COLORS,
  DISCORD_RESOLVED_COLOR,
  discordPayload,
} from "./discord/discord.js";
export type { ElasticsearchOptions, IndexRotation } from "./elasticsearch/elasticsearch.js";
export { createElasticsearchTarget, elasticsearchIndex } from "./elasticsearch/elasticsearch.js";
export type {
  FilterConfig,
  FilterDeps,
  IncludeExclude,
  NamespaceFilter,
  NamespaceLabelsLookup,
  TargetFilter,
} from "./filter/filter.js";
export { matchesFilter, withFilter } from "./filter/filter.js";
export type { SharedJsonResult } from "./format.js";
export { sharedJsonResult } from "./format.js";
export type { GoogleChatOptions, GoogleChatPayload } from "./google-chat/google-chat.js";
export { createGoogleChatTarget, googleChatPayload } from "./google-chat/google-chat.js";
export type { LokiOptions, LokiPayload, LokiStream } from "./loki/loki.js";
export { createLokiTarget, lokiStream } from "./loki/loki.js";
export type { ParsedThreshold } from "./severity.js";
export { meetsMinimumSeverity, parseMinimumSeverity, resultPriority, severityRank } from "./severity.js";
export type { SlackOptions, SlackPayload } from "./slack/slack.js";
export { createSlackTarget, SLACK_COLORS, slackBatchPayload, slackPayload } from "./slack/slack.js";
export type { TeamsOptions, TeamsPayload } from "./teams/teams.js";
export { createTeamsTarget, teamsPayload } from "./teams/teams.js";
export type { TelegramOptions, TelegramPayload } from "./telegram/telegram.js";
export { createTelegramTarget, escapeMarkdownV2, telegramText } from "./telegram/telegram.js";
export type {
  BaseTargetOptions,
  DeliveryErrorCode,
  DeliveryFailure,
  DeliveryOptions,
  HttpClient,
  HttpRequest,
  HttpResponse,
  NotifiableResult,
  NotificationEvent,
  Priority,
  ReportRef,
  ResourceRef,
  ResultStatus,
  SendContext,
  Severity,
  Target,
  TargetBinding,
  TargetDeps,
} from "./types.js";
export type { Keepalive, KeepaliveOptions, WebhookOptions } from "./webhook/webhook.js";
export { createWebhookTarget, startWebhookKeepalive } from "./webhook/webhook.js";
