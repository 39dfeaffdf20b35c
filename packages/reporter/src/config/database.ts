/**
 * `database` → store options: URLs for the drivers from Policy Reporter's DSN forms (Go MySQL DSNs,
 * libpq key=value strings) or from host / username / password / database.
 */
import type { Logger } from "../logger.js";
import type { StoreOptions } from "../store/types.js";
import { ConfigError } from "./read.js";
import type { DatabaseConfig } from "./types.js";

/** `user:pass@tcp(host:port)/db?params` (go-sql-driver) → `mysql://user:pass@host:port/db`. */
export function mysqlUrlFromDsn(dsn: string): string {
  if (/^mysql:\/\//.test(dsn)) return dsn;
  const m = /^(?:([^:@]*)(?::(.*))?@)?(?:tcp)?\(?([^)/]*)\)?\/([^?]*)(?:\?.*)?$/.exec(dsn);
  if (m === null)
    throw new ConfigError("database.dsn", "not a MySQL DSN (user:password@tcp(host:3306)/database)");
  const [, user = "", password, host = "", database = ""] = m;
  const auth = user
    ? `${encodeURIComponent(user)}${password ? `:${encodeURIComponent(password)}` : ""}@`
    : "";
  return `mysql://${auth}${host || "127.0.0.1:3306"}/${database}`;
}

/** `host=h port=5432 user=u password=p dbname=d sslmode=disable` → `postgres://u:p@h:5432/d?sslmode=disable`. */
export function postgresUrlFromDsn(dsn: string): string {
  if (/^postgres(ql)?:\/\//.test(dsn)) return dsn;
  const fields: Record<string, string> = {};
  for (const m of dsn.matchAll(/(\w+)\s*=\s*(?:'((?:[^'\\]|\\.)*)'|(\S*))/g)) {
    fields[m[1] as string] = (m[2] ?? m[3] ?? "").replace(/\\(.)/g, "$1");
  }
  if (Object.keys(fields).length === 0) {
    throw new ConfigError("database.dsn", "not a PostgreSQL URL or key=value connection string");
  }
  const user = fields.user ? encodeURIComponent(fields.user) : "";
  const password = fields.password ? `:${encodeURIComponent(fields.password)}` : "";
  const host = `${fields.host ?? "127.0.0.1"}${fields.port ? `:${fields.port}` : ""}`;
  const query = fields.sslmode ? `?sslmode=${encodeURIComponent(fields.sslmode)}` : "";
  return `postgres://${user}${password}${user ? "@" : ""}${host}/${fields.dbname ?? ""}${query}`;
}

function fromParts(config: DatabaseConfig, scheme: string, defaultPort: number): string {
  const auth = config.username
    ? `${encodeURIComponent(config.username)}${config.password ? `:${encodeURIComponent(config.password)}` : ""}@`
    : "";
  const host = config.host.includes(":") ? config.host : `${config.host}:${defaultPort}`;
  return `${scheme}://${auth}${host}/${encodeURIComponent(config.database)}`;
}

/**
 * The store options of a `database` section. SQLite uses `sqlitePath` (the `--sqlite` flag or
 * `dbfile`). `enableSSL` asks PostgreSQL for `sslmode=require` and MySQL for TLS.
 */
export function storeOptionsFromConfig(
  config: DatabaseConfig,
  sqlitePath: string,
  logger?: Logger,
): StoreOptions {
  const withLogger = logger ? { logger } : {};
  if (config.type === "sqlite") return { type: "sqlite", path: sqlitePath, ...withLogger };
  if (config.type === "postgres") {
    let url = config.dsn ? postgresUrlFromDsn(config.dsn) : fromParts(config, "postgres", 5432);
    if (!config.dsn) url += `?sslmode=${config.enableSSL ? "require" : "disable"}`;
    return {
      type: "postgres",
      connectionString: url,
      maxConnections: config.maxOpenConnections,
      ...withLogger,
    };
  }
  let url = config.dsn ? mysqlUrlFromDsn(config.dsn) : fromParts(config, "mysql", 3306);
  if (config.enableSSL && !url.includes("?"))
    url += `?ssl=${encodeURIComponent('{"rejectUnauthorized":true}')}`;
  return {
    type: config.type,
    connectionString: url,
    maxConnections: config.maxOpenConnections,
    ...withLogger,
  };
}
