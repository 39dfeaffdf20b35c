/**
 * Environment overrides of configuration keys. Names follow viper's automatic mapping that Policy
 * Reporter uses (upper case, `.` → `_`: `DATABASE_PASSWORD` → `database.password`), plus the pod's
 * identity from the downward API (`POD_NAME`, `POD_NAMESPACE`).
 */

/** Every supported variable and the key it sets. */
export const ENV_OVERRIDES: Readonly<Record<string, string>> = {
  POD_NAMESPACE: "namespace",
  POD_NAME: "leaderElection.podName",
  DATABASE_TYPE: "database.type",
  DATABASE_DSN: "database.dsn",
  DATABASE_HOST: "database.host",
  DATABASE_DATABASE: "database.database",
  DATABASE_USERNAME: "database.username",
  DATABASE_PASSWORD: "database.password",
  REDIS_ENABLED: "redis.enabled",
  REDIS_ADDRESS: "redis.address",
  REDIS_DATABASE: "redis.database",
  REDIS_PREFIX: "redis.prefix",
  REDIS_USERNAME: "redis.username",
  REDIS_PASSWORD: "redis.password",
  BASICAUTH_USERNAME: "api.basicAuth.username",
  BASICAUTH_PASSWORD: "api.basicAuth.password",
  METRICS_ENABLED: "metrics.enabled",
  METRICS_MODE: "metrics.mode",
  REST_ENABLED: "rest.enabled",
  LEADERELECTION_ENABLED: "leaderElection.enabled",
  LEADERELECTION_LOCKNAME: "leaderElection.lockName",
  LOGGING_LOGLEVEL: "logging.logLevel",
  LOGGING_ENCODING: "logging.encoding",
  UI_ENABLED: "ui.enabled",
  UI_PATH: "ui.path",
  UI_SERVER_SESSIONS_SECRET: "ui.server.sessions.secret",
  UI_OPENIDCONNECT_CLIENTID: "ui.openIDConnect.clientId",
  UI_OPENIDCONNECT_CLIENTSECRET: "ui.openIDConnect.clientSecret",
  UI_BASICAUTH_USERNAME: "ui.basicAuth.username",
  UI_BASICAUTH_PASSWORD: "ui.basicAuth.password",
};

/**
 * Returns a copy of `raw` with the variables of {@link ENV_OVERRIDES} that are set (and not empty)
 * written over their keys, and the keys that were overridden. Intermediate mappings are created.
 */
export function applyEnvOverrides(
  raw: unknown,
  env: Readonly<Record<string, string | undefined>>,
): { raw: unknown; overridden: string[] } {
  const overridden: string[] = [];
  const isMap = (v: unknown): v is Record<string, unknown> =>
    typeof v === "object" && v !== null && !Array.isArray(v);
  if (raw !== undefined && raw !== null && !isMap(raw)) return { raw, overridden };
  const root: Record<string, unknown> = structuredClone(isMap(raw) ? raw : {});
  for (const [name, key] of Object.entries(ENV_OVERRIDES)) {
    const value = env[name];
    if (value === undefined || value === "") continue;
    const parts = key.split(".");
    let node = root;
    for (const part of parts.slice(0, -1)) {
      const next = node[part];
      if (!isMap(next)) node[part] = {};
      node = node[part] as Record<string, unknown>;
    }
    node[parts[parts.length - 1] as string] = value;
    overridden.push(key);
  }
  return { raw: root, overridden };
}
