/**
 * `createStore`: opens SQLite (node:sqlite), PostgreSQL (pg) or MySQL/MariaDB (mysql2) behind one
 * kysely query layer, migrates the schema and returns the {@link ReportStore}.
 */
import { statSync } from "node:fs";
import { Kysely, MysqlDialect, PostgresDialect, sql } from "kysely";
import { createPool } from "mysql2";
import pg from "pg";
import { ReporterError } from "../errors.js";
import { toStoreError } from "./errors.js";
import { appliedVersion, migrate } from "./migrations.js";
import { countBy, policyCounts, propertyValues, values } from "./read-counts.js";
import { reports, resource, resourceCounts, resources, results } from "./read-lists.js";
import type { Database } from "./schema.js";
import { createSqliteDialect } from "./sqlite-driver.js";
import type { ReportStore, StoreDialect, StoreOptions } from "./types.js";
import { writeOps } from "./write.js";

/** PostgreSQL type OIDs returned as strings by default that the store wants as numbers. */
const PG_INT8 = 20;
const PG_NUMERIC = 1700;

/** Every table of the schema. */
const TABLES = [
  "results",
  "report_labels",
  "reports",
  "result_counts",
  "namespace_status_counts",
  "namespace_counts",
  "policy_counts",
  "resource_counts",
  "resource_category_counts",
  "resource_status_counts",
] as const satisfies readonly (keyof Database)[];

interface Opened {
  db: Kysely<Database>;
  dialect: StoreDialect;
  schema?: string;
  size: (db: Kysely<Database>) => Promise<number>;
}

function open(options: StoreOptions): Opened {
  switch (options.type) {
    case "sqlite": {
      const path = options.path ?? ":memory:";
      const handle = createSqliteDialect({
        path,
        ...(options.maxSizeBytes !== undefined ? { maxSizeBytes: options.maxSizeBytes } : {}),
      });
      return {
        db: new Kysely<Database>({ dialect: handle.dialect }),
        dialect: "sqlite",
        size: async () => {
          const row = handle.database
            .prepare("select page_count * page_size as size from pragma_page_count(), pragma_page_size()")
            .get();
          let wal = 0;
          if (path !== ":memory:") {
            try {
              wal = statSync(`${path}-wal`).size;
            } catch {
              wal = 0;
            }
          }
          return Number(row?.size ?? 0) + wal;
        },
      };
    }
    case "postgres": {
      const schema = options.schema;
      if (schema !== undefined && !/^[a-z_][a-z0-9_]*$/.test(schema)) {
        throw new ReporterError(
          "STORE_CONFIG_INVALID",
          `invalid PostgreSQL schema name ${JSON.stringify(schema)}`,
        );
      }
      const logger = options.logger;
      const pool = new pg.Pool({
        connectionString: options.connectionString,
        max: options.maxConnections ?? 10,
        // An unreachable server fails a connect (and a dead connection a query) instead of hanging:
        // the writer then keeps its writes until the server answers again.
        connectionTimeoutMillis: 10_000,
        keepAlive: true,
        ...(schema ? { options: `-c search_path=${schema}` } : {}),
        types: {
          getTypeParser: ((oid: number, format?: "text" | "binary") =>
            oid === PG_INT8 || oid === PG_NUMERIC
              ? (value: string) => Number(value)
              : pg.types.getTypeParser(oid, format ?? "text")) as typeof pg.types.getTypeParser,
        },
      });
      // An idle client losing its connection emits on the pool; unhandled, that would end the process.
      pool.on("error", (err) => logger?.warn({ err: err.message }, "PostgreSQL connection lost"));
      return {
        db: new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }),
        dialect: "postgres",
        ...(schema ? { schema } : {}),
        size: async (db) => {
          const { rows } = await sql<{
            size: number;
          }>`select coalesce(sum(pg_total_relation_size(c.oid)), 0) as size
            from pg_class c join pg_namespace n on n.oid = c.relnamespace
            where n.nspname = current_schema() and c.relkind = 'r'`.execute(db);
          return Number(rows[0]?.size ?? 0);
        },
      };
    }
    case "mysql":
    case "mariadb": {
      const pool = createPool({
        uri: options.connectionString,
        connectionLimit: options.maxConnections ?? 10,
        charset: "utf8mb4",
        decimalNumbers: true,
        supportBigNumbers: true,
      });
      return {
        db: new Kysely<Database>({ dialect: new MysqlDialect({ pool }) }),
        dialect: "mysql",
        size: async (db) => {
          const { rows } = await sql<{
            size: number;
          }>`select coalesce(sum(data_length + index_length), 0) as size
            from information_schema.tables where table_schema = database()`.execute(db);
          return Number(rows[0]?.size ?? 0);
        },
      };
    }
    default:
      throw new ReporterError("STORE_CONFIG_INVALID", `unknown database type ${JSON.stringify(options)}`);
  }
}

/**
 * Opens and migrates a store. Throws `STORE_MIGRATION_FAILED` (or a connection error wrapped as
 * `STORE_READ_FAILED`) when the database is unusable; the connection is closed in that case.
 */
/** The first schema of the connection's search_path (PostgreSQL). */
async function currentSchema(db: Kysely<Database>): Promise<string | undefined> {
  const { rows } = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(db);
  return rows[0]?.schema ?? undefined;
}

export async function createStore(options: StoreOptions): Promise<ReportStore> {
  let opened: Opened;
  try {
    opened = open(options);
  } catch (err) {
    throw err instanceof ReporterError
      ? err
      : new ReporterError("STORE_CONFIG_INVALID", `cannot open the ${options.type} store: ${String(err)}`, {
          cause: err,
        });
  }
  const { db, dialect, schema, size } = opened;
  try {
    if (schema) await sql`create schema if not exists ${sql.id(schema)}`.execute(db);
    // Without a schema option, the one the connection uses (a DSN may set search_path): kysely's
    // migrator otherwise finds the lock table of any schema and then fails on its own one.
    const migrationSchema = schema ?? (dialect === "postgres" ? await currentSchema(db) : undefined);
    await migrate(db, dialect, migrationSchema);
  } catch (err) {
    await db.destroy();
    throw err instanceof ReporterError ? err : toStoreError(err, "read");
  }
  const read = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      throw toStoreError(err, "read");
    }
  };
  /**
   * Planner statistics; with `vacuum`, PostgreSQL also vacuums, which marks the pages all-visible so
   * the count queries read covering indexes alone (index-only scans) instead of every matching row:
   * done after a bulk load (`optimize()`), not while rows are written.
   */
  const analyze = async (vacuum: boolean) => {
    try {
      if (dialect === "sqlite") await sql`analyze`.execute(db);
      else if (dialect === "postgres") {
        const tables = sql.join(TABLES.map((t) => sql.table(t)));
        await (vacuum ? sql`vacuum (analyze) ${tables}` : sql`analyze ${tables}`).execute(db);
      } else await sql`analyze table ${sql.join(TABLES.map((t) => sql.table(t)))}`.execute(db);
    } catch (err) {
      throw toStoreError(err, "write");
    }
  };
  const optimize = () => analyze(true);
  // Statistics are refreshed when the rows written since the last refresh double (5,000 at first):
  // right after a bulk load the planner would otherwise see empty tables and scan.
  let written = 0;
  let threshold = 5_000;
  return {
    dialect,
    async write(ops) {
      const summary = await writeOps(db, dialect, ops);
      written += summary.resultsWritten;
      if (written >= threshold) {
        written = 0;
        threshold *= 2;
        await analyze(false);
      }
      return summary;
    },
    optimize,
    async clear() {
      try {
        await db.transaction().execute(async (trx) => {
          for (const t of TABLES) await trx.deleteFrom(t).execute();
        });
      } catch (err) {
        throw toStoreError(err, "write");
      }
    },
    reportIds: () =>
      read(async () => (await db.selectFrom("reports").select("id").execute()).map((r) => r.id)),
    countBy: (dimensions, filter) => read(() => countBy(db, dialect, dimensions, filter)),
    policyCounts: (filter) => read(() => policyCounts(db, dialect, filter)),
    values: (dimension, filter) => read(() => values(db, dialect, dimension, filter)),
    propertyValues: (property, filter) => read(() => propertyValues(db, dialect, property, filter)),
    results: (filter, pagination) => read(() => results(db, dialect, filter, pagination)),
    resourceCounts: (filter, opts) => read(() => resourceCounts(db, dialect, filter, opts)),
    resources: (filter) => read(() => resources(db, dialect, filter)),
    resource: (id) => read(() => resource(db, id)),
    reports: (filter, pagination) => read(() => reports(db, dialect, filter, pagination)),
    size: () => read(() => size(db)),
    tableRows: () =>
      read(async () => {
        const out: Record<string, number> = {};
        for (const t of TABLES) {
          const row = await db
            .selectFrom(t)
            .select((eb) => eb.fn.countAll<number>().as("n"))
            .executeTakeFirst();
          out[t] = Number(row?.n ?? 0);
        }
        return out;
      }),
    ping: () => read(async () => void (await sql`select 1`.execute(db))),
    schemaVersion: () => read(() => appliedVersion(db, schema)),
    close: () => db.destroy(),
  };
}
