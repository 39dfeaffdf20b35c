/**
 * The `target:` configuration, keys as in Policy Reporter's Helm values. Secrets (`secretRef`,
 * `mountedSecret`) are resolved into these fields by the configuration loader before targets are built.
 */

import type { IndexRotation } from "../elasticsearch/elasticsearch.js";
import type { FilterConfig } from "../filter/filter.js";
import type { DeliveryOptions } from "../types.js";

/** Options every target (and channel) accepts. */
export interface CommonTargetConfig {
  name?: string;
  /** "" < info < low < medium < high < critical; legacy priorities (warning, error…) are accepted. */
  minimumSeverity?: string;
  /** Legacy alias of `minimumSeverity`. */
  minimumPriority?: string;
  sources?: string[];
  /** Default true. */
  skipExistingOnStartup?: boolean;
  /** Opt-in: notify when a notified failure turns to pass. */
  sendResolved?: boolean;
  customFields?: Record<string, string>;
  filter?: FilterConfig;
  headers?: Record<string, string>;
  /** Path to the server's CA certificate (PEM). */
  certificate?: string;
  skipTLS?: boolean;
  /** Timeout and retries (an extension; upstream has fixed values). */
  delivery?: DeliveryOptions;
  /** A Secret in the reporter's namespace whose keys override this config's (resolved by the config loader). */
  secretRef?: string;
  /** A JSON file whose keys override this config's (resolved by the config loader). */
  mountedSecret?: string;
}

/** `target.discord`. */
export interface DiscordConfig extends CommonTargetConfig {
  webhook?: string;
  channels?: DiscordConfig[];
}

/** `target.slack`. */
export interface SlackConfig extends CommonTargetConfig {
  webhook?: string;
  channel?: string;
  channels?: SlackConfig[];
}

/** `target.teams`. */
export interface TeamsConfig extends CommonTargetConfig {
  webhook?: string;
  channels?: TeamsConfig[];
}

/** `target.webhook`. */
export interface WebhookConfig extends CommonTargetConfig {
  webhook?: string;
  keepalive?: {
    /** Go duration ("30s", "1m") or milliseconds; "0" disables. */
    interval?: string | number;
    params?: Record<string, string>;
  };
  channels?: WebhookConfig[];
}

/** `target.loki`. */
export interface LokiConfig extends CommonTargetConfig {
  host?: string;
  path?: string;
  username?: string;
  password?: string;
  channels?: LokiConfig[];
}

/** `target.elasticsearch`. */
export interface ElasticsearchConfig extends CommonTargetConfig {
  host?: string;
  index?: string;
  rotation?: IndexRotation;
  typelessApi?: boolean;
  username?: string;
  password?: string;
  apiKey?: string;
  channels?: ElasticsearchConfig[];
}

/** `target.telegram`. */
export interface TelegramConfig extends CommonTargetConfig {
  token?: string;
  chatId?: string;
  host?: string;
  channels?: TelegramConfig[];
}

/** `target.googleChat`. */
export interface GoogleChatConfig extends CommonTargetConfig {
  webhook?: string;
  channels?: GoogleChatConfig[];
}

/** `target.alertManager`. */
export interface AlertManagerConfig extends CommonTargetConfig {
  host?: string;
  channels?: AlertManagerConfig[];
}

/** The `target:` block. */
export interface TargetsConfig {
  discord?: DiscordConfig;
  slack?: SlackConfig;
  teams?: TeamsConfig;
  webhook?: WebhookConfig;
  loki?: LokiConfig;
  elasticsearch?: ElasticsearchConfig;
  telegram?: TelegramConfig;
  googleChat?: GoogleChatConfig;
  alertManager?: AlertManagerConfig;
}

/** A configured target kind. */
export type TargetKind = keyof TargetsConfig;
