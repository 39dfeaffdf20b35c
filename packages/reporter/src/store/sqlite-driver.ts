/**
 * kysely over Node's built-in `node:sqlite` (no native addon): an adapter that presents a
 * `DatabaseSync` as kysely's `SqliteDatabase`, so kysely's own SQLite dialect (query compiler,
 * single-connection mutex, transactions) drives it. Prepared statements are cached per SQL text.
 */
import { DatabaseSync, type SQLInputValue, type StatementSync } from "node:sqlite";
import { type SqliteDatabase, SqliteDialect, type SqliteStatement } from "kysely";

/** Options of {@link createSqliteDialect}. */
export interface SqliteDialectOptions {
  /** A file path or `:memory:`. */
  path: string;
  /** Caps the database file (`PRAGMA max_page_count`); writes beyond it fail with SQLITE_FULL. */
  maxSizeBytes?: number;
  /** Prepared statements kept for reuse; default 256. */
  statementCacheSize?: number;
}

/** A kysely dialect plus the underlying database (for pragmas and size queries). */
export interface SqliteHandle {
  readonly dialect: SqliteDialect;
  readonly database: DatabaseSync;
}

function toInput(value: unknown): SQLInputValue {
  if (value === undefined || value === null) return null;
  if (typeof value === "boolean") return value ? 1 : 0;
  if (typeof value === "number" || typeof value === "bigint" || typeof value === "string") return value;
  if (value instanceof Uint8Array) return value;
  if (value instanceof Date) return value.toISOString();
  return JSON.stringify(value);
}

function adaptStatement(statement: StatementSync): SqliteStatement {
  const reader = statement.columns().length > 0;
  const args = (parameters: ReadonlyArray<unknown>) => parameters.map(toInput);
  return {
    reader,
    all: (parameters) => statement.all(...args(parameters)),
    run: (parameters) => statement.run(...args(parameters)),
    iterate: (parameters) => statement.iterate(...args(parameters)),
  };
}

/**
 * Opens `path` with `node:sqlite` and returns a kysely dialect for it. File databases use WAL with
 * `synchronous=NORMAL` (durable on checkpoint, fast commits); all use a 16 MiB page cache and
 * sampled statistics (`analysis_limit`).
 */
export function createSqliteDialect(options: SqliteDialectOptions): SqliteHandle {
  const database = new DatabaseSync(options.path, { timeout: 5000 });
  if (options.path !== ":memory:") {
    database.exec("PRAGMA journal_mode = WAL");
    database.exec("PRAGMA synchronous = NORMAL");
  }
  database.exec("PRAGMA cache_size = -16384");
  database.exec("PRAGMA analysis_limit = 1000");
  database.exec("PRAGMA temp_store = MEMORY");
  if (options.maxSizeBytes !== undefined) {
    const pageSize = Number(database.prepare("PRAGMA page_size").get()?.page_size ?? 4096);
    database.exec(`PRAGMA max_page_count = ${Math.max(1, Math.ceil(options.maxSizeBytes / pageSize))}`);
  }
  const max = options.statementCacheSize ?? 256;
  const cache = new Map<string, SqliteStatement>();
  const adapter: SqliteDatabase = {
    close: () => database.close(),
    prepare(text) {
      const hit = cache.get(text);
      if (hit) {
        cache.delete(text);
        cache.set(text, hit);
        return hit;
      }
      const statement = adaptStatement(database.prepare(text));
      cache.set(text, statement);
      if (cache.size > max) {
        const oldest = cache.keys().next().value;
        if (oldest !== undefined) cache.delete(oldest);
      }
      return statement;
    },
  };
  return { dialect: new SqliteDialect({ database: adapter }), database };
}
