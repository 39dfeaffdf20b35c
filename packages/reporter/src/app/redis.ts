/**
 * The Redis connection of `redis.*` (shared seen-results cache between replicas): address, database,
 * credentials and TLS (CA, client certificate, `skipTLS`).
 */
import { readFileSync } from "node:fs";
import { Redis, type RedisOptions } from "ioredis";
import type { RedisConfig } from "../config/types.js";
import type { Logger } from "../logger.js";

/** Connection options of a `redis` section (file paths are read here). */
export function redisOptions(config: RedisConfig): RedisOptions {
  const url = /^rediss?:\/\//.test(config.address) ? new URL(config.address) : undefined;
  const [host = "127.0.0.1", port = "6379"] = url
    ? [url.hostname, url.port || "6379"]
    : config.address.split(":");
  const useTls =
    url?.protocol === "rediss:" || Boolean(config.certificate || config.clientCert || config.skipTLS);
  const options: RedisOptions = {
    host,
    port: Number(port),
    db: config.database,
    // A command waits for a reconnect at most this often; then it fails and the notifier retries the event.
    maxRetriesPerRequest: 2,
    connectTimeout: 5000,
    retryStrategy: (times) => Math.min(times * 200, 5000),
  };
  if (config.username) options.username = config.username;
  if (config.password) options.password = config.password;
  if (useTls) {
    options.tls = {
      ...(config.certificate ? { ca: readFileSync(config.certificate) } : {}),
      ...(config.clientCert ? { cert: readFileSync(config.clientCert) } : {}),
      ...(config.clientKey ? { key: readFileSync(config.clientKey) } : {}),
      ...(config.skipTLS ? { rejectUnauthorized: false } : {}),
    };
  }
  return options;
}

/** Opens the connection; errors are logged (ioredis reconnects by itself). Close with `quit()`. */
export function createRedisClient(config: RedisConfig, logger: Logger): Redis {
  const client = new Redis(redisOptions(config));
  let lastError = "";
  client.on("error", (error: Error) => {
    if (error.message === lastError) return;
    lastError = error.message;
    logger.warn({ address: config.address, err: error.message }, "Redis connection error");
  });
  client.on("ready", () => {
    lastError = "";
  });
  return client;
}
