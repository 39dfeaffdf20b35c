/**
 * New-result detection: the notifier, and the seen-results cache in memory or shared through Redis.
 */

export type { MemorySeenCacheOptions } from "./memory-cache.js";
export { createMemorySeenCache } from "./memory-cache.js";
export type { Notifier, NotifierDeps, NotifierOptions } from "./notifier.js";
export { createNotifier, NOTIFIED_STATUSES, resolutionKey } from "./notifier.js";
export type { RedisSeenCacheOptions } from "./redis-cache.js";
export { createRedisSeenCache } from "./redis-cache.js";
export type { NotifierReport, NotifyOutcome, OpenFailure, ReportEvent, SeenCache } from "./types.js";
export { DEFAULT_SEEN_TTL_MS } from "./types.js";
