/**
 * The versioned schema. Each migration is plain DDL per dialect (types and index limits differ:
 * PostgreSQL columns use the `C` collation and MySQL tables `utf8mb4_bin`, so sorting and equality
 * are bytewise everywhere). Applied by kysely's Migrator, which records versions and takes a lock.
 */
import { type Kysely, sql } from "kysely";
import { type Migration, Migrator } from "kysely/migration";
import { ReporterError } from "../errors.js";
import { FIELD_LIMITS } from "../model/limits.js";
import { MASK_STATUSES, maskKey } from "./resource-masks.js";
import type { Database } from "./schema.js";
import { MIGRATION_TABLE } from "./schema.js";
import type { StoreDialect } from "./types.js";

type ColumnType = "id" | "hash" | number | "text" | "int" | "bigint";

function columnType(dialect: StoreDialect, type: ColumnType): string {
  if (dialect === "sqlite") return type === "int" || type === "bigint" ? "INTEGER" : "TEXT";
  if (type === "int") return "INTEGER";
  if (type === "bigint") return "BIGINT";
  if (type === "text") return dialect === "mysql" ? "MEDIUMTEXT" : "TEXT";
  const length = type === "id" ? FIELD_LIMITS.id : type === "hash" ? 32 : type;
  return dialect === "postgres" ? `VARCHAR(${length}) COLLATE "C"` : `VARCHAR(${length})`;
}

function quote(dialect: StoreDialect, name: string): string {
  return dialect === "mysql" ? `\`${name}\`` : `"${name}"`;
}

/** Renders `CREATE TABLE` for one dialect from column specs. */
function table(
  dialect: StoreDialect,
  name: string,
  columns: Record<string, ColumnType>,
  primaryKey: readonly string[],
): string {
  const q = (n: string) => quote(dialect, n);
  const cols = Object.entries(columns).map(([c, t]) => `${q(c)} ${columnType(dialect, t)} NOT NULL`);
  cols.push(`PRIMARY KEY (${primaryKey.map(q).join(", ")})`);
  const suffix = dialect === "mysql" ? " ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin" : "";
  return `CREATE TABLE ${q(name)} (\n  ${cols.join(",\n  ")}\n)${suffix}`;
}

function index(dialect: StoreDialect, tableName: string, name: string, columns: readonly string[]): string {
  const q = (n: string) => quote(dialect, n);
  return `CREATE INDEX ${q(name)} ON ${q(tableName)} (${columns.map(q).join(", ")})`;
}

const COUNTS = { pass: "int", fail: "int", warn: "int", error: "int", skip: "int" } as const;

/** Version 1: reports, results, labels and the two pre-aggregated count tables. */
function initial(dialect: StoreDialect): string[] {
  const L = FIELD_LIMITS;
  return [
    table(
      dialect,
      "reports",
      {
        id: "hash",
        kind: 32,
        name: L.name,
        namespace: L.namespace,
        source: L.source,
        labels: "text",
        scope: "text",
        ...COUNTS,
        created: "bigint",
        content_hash: "hash",
      },
      ["id"],
    ),
    index(dialect, "reports", "reports_namespace_name", ["namespace", "name"]),
    table(
      dialect,
      "results",
      {
        report_id: "hash",
        id: "id",
        namespace: L.namespace,
        source: L.source,
        policy: L.policy,
        rule: L.rule,
        status: 8,
        severity: 8,
        category: L.category,
        message: "text",
        scored: "int",
        ts: "bigint",
        properties: "text",
        resource_id: "hash",
        resource_api_version: L.apiVersion,
        resource_kind: L.kind,
        resource_name: L.name,
        resource_namespace: L.namespace,
        resource_uid: L.uid,
      },
      ["report_id", "id"],
    ),
    // The default list order (column limits keep it under MySQL's 3072-byte key limit in utf8mb4).
    index(dialect, "results", "results_list", ["namespace", "resource_name", "policy", "report_id", "id"]),
    index(dialect, "results", "results_resource", ["resource_id"]),
    index(dialect, "results", "results_policy", ["policy"]),
    table(dialect, "report_labels", { report_id: "hash", label_key: L.labelKey, label_value: L.labelValue }, [
      "report_id",
      "label_key",
    ]),
    index(dialect, "report_labels", "report_labels_pair", ["label_key", "label_value"]),
    table(
      dialect,
      "result_counts",
      {
        agg_key: "hash",
        namespace: L.namespace,
        source: L.source,
        category: L.category,
        policy: L.policy,
        rule: L.rule,
        severity: 8,
        status: 8,
        kind: L.kind,
        total: "int",
      },
      ["agg_key"],
    ),
    table(
      dialect,
      "namespace_status_counts",
      { agg_key: "hash", namespace: L.namespace, source: L.source, severity: 8, status: 8, total: "int" },
      ["agg_key"],
    ),
    table(
      dialect,
      "namespace_counts",
      {
        agg_key: "hash",
        namespace: L.namespace,
        source: L.source,
        category: L.category,
        severity: 8,
        status: 8,
        kind: L.kind,
        total: "int",
      },
      ["agg_key"],
    ),
    table(
      dialect,
      "policy_counts",
      {
        agg_key: "hash",
        cluster: "int",
        source: L.source,
        category: L.category,
        policy: L.policy,
        severity: 8,
        status: 8,
        total: "int",
      },
      ["agg_key"],
    ),
    ...["resource_counts", "resource_category_counts"].flatMap((name) => [
      table(
        dialect,
        name,
        {
          agg_key: "hash",
          resource_id: "hash",
          namespace: L.namespace,
          api_version: L.apiVersion,
          kind: L.kind,
          name: L.name,
          resource_namespace: L.namespace,
          uid: L.uid,
          source: L.source,
          category: L.category,
          ...COUNTS,
        },
        ["agg_key"],
      ),
      // The list order (a page streams from it), and lookups of one resource.
      index(dialect, name, `${name}_list`, ["namespace", "name", "resource_id", "source", "category"]),
      index(dialect, name, `${name}_resource`, ["resource_id"]),
    ]),
  ];
}

/**
 * Version 2: `results_policy` (policy) becomes `results_policy_list` (policy, namespace, kind,
 * name), so one policy's results come in the dashboard's list order (namespace, kind, name, …)
 * and a page reads its rows instead of sorting all of the policy's results (24,000 of 100,000 in
 * the dashboard benchmark: 22 ms to 0.2 ms on SQLite). Lookups by policy use its first column.
 * Without `rule`, the key stays under MySQL's 3072-byte limit in utf8mb4.
 */
function policyListIndex(dialect: StoreDialect): string[] {
  const drop =
    dialect === "mysql" ? "DROP INDEX `results_policy` ON `results`" : `DROP INDEX "results_policy"`;
  return [
    index(dialect, "results", "results_policy_list", [
      "policy",
      "namespace",
      "resource_kind",
      "resource_name",
    ]),
    drop,
  ];
}

/**
 * Version 3: `results_policy_resources` (policy, status, namespace, resource_name, resource_id,
 * source). The policy page counts and pages one policy's resources grouped in the resource list
 * order; with only `results_policy_list` that read every result of the policy from the table (at
 * 1,000,000 results, 22,500 rows over 17,000 heap blocks: 388 ms on PostgreSQL for the count). This
 * index answers both from the index alone for a status filter (13 ms; 1.3 ms once vacuumed, which
 * `optimize()` does) and in group order without one. 737 characters: under MySQL's 3072-byte key.
 */
function policyResourcesIndex(dialect: StoreDialect): string[] {
  return [
    index(dialect, "results", "results_policy_resources", [
      "policy",
      "status",
      "namespace",
      "resource_name",
      "resource_id",
      "source",
    ]),
  ];
}

/**
 * Version 4: `resource_status_counts`, the number of per-resource rows per (namespace, source,
 * kind, category, status mask) — see `resource-masks.ts` — filled from the per-resource tables of
 * an existing database. The resource list's total then sums its matching rows instead of counting
 * every resource (at 1,000,000 results: 14–23 ms to well under 1 ms on PostgreSQL).
 */
function resourceStatusCounts(dialect: StoreDialect): Migration {
  const L = FIELD_LIMITS;
  const create = table(
    dialect,
    "resource_status_counts",
    {
      agg_key: "hash",
      per_category: "int",
      namespace: L.namespace,
      source: L.source,
      kind: L.kind,
      category: L.category,
      mask: "int",
      total: "int",
    },
    ["agg_key"],
  );
  return {
    async up(db) {
      await sql.raw(create).execute(db);
      // A total reads one granularity's rows with the filtered statuses' masks.
      await sql
        .raw(
          index(dialect, "resource_status_counts", "resource_status_counts_mask", ["per_category", "mask"]),
        )
        .execute(db);
      const mask = sql.join(
        MASK_STATUSES.map((s, i) => sql`(case when ${sql.ref(s)} > 0 then ${sql.lit(1 << i)} else 0 end)`),
        sql` + `,
      );
      for (const [perCategory, name] of [
        [0, "resource_counts"],
        [1, "resource_category_counts"],
      ] as const) {
        const { rows } = await sql<{
          namespace: string;
          source: string;
          kind: string;
          category: string;
          mask: unknown;
          n: unknown;
        }>`select ${sql.ref("namespace")}, ${sql.ref("source")}, ${sql.ref("kind")}, ${sql.ref("category")}, ${mask} as ${sql.ref(
          "mask",
        )}, count(*) as ${sql.ref("n")} from ${sql.table(name)} group by 1, 2, 3, 4, 5`.execute(db);
        const values = rows.map((r) => {
          const row = {
            per_category: perCategory,
            namespace: r.namespace,
            source: r.source,
            kind: r.kind,
            category: r.category,
            mask: Number(r.mask),
          };
          return { agg_key: maskKey(row), ...row, total: Number(r.n) };
        });
        for (let i = 0; i < values.length; i += 500) {
          await db
            .insertInto("resource_status_counts")
            .values(values.slice(i, i + 500))
            .execute();
        }
      }
    },
  };
}

/** All migrations in order; append new versions, never edit applied ones. */
function migrations(dialect: StoreDialect): Record<string, Migration> {
  const ddl = (statements: string[]): Migration => ({
    async up(db) {
      for (const statement of statements) await sql.raw(statement).execute(db);
    },
  });
  return {
    "0001_initial": ddl(initial(dialect)),
    "0002_results_policy_list": ddl(policyListIndex(dialect)),
    "0003_results_policy_resources": ddl(policyResourcesIndex(dialect)),
    "0004_resource_status_counts": resourceStatusCounts(dialect),
  };
}

/** Brings the schema to the latest version; throws `STORE_MIGRATION_FAILED` with the cause. */
export async function migrate(db: Kysely<Database>, dialect: StoreDialect, schema?: string): Promise<void> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations(dialect) },
    migrationTableName: MIGRATION_TABLE,
    migrationLockTableName: `${MIGRATION_TABLE}_lock`,
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === "Error")?.migrationName ?? "unknown";
    throw new ReporterError("STORE_MIGRATION_FAILED", `migration ${failed} failed: ${String(error)}`, {
      cause: error,
    });
  }
}

/** Number of applied migrations. */
export async function appliedVersion(db: Kysely<Database>, schema?: string): Promise<number> {
  const name = schema ? sql.table(`${schema}.${MIGRATION_TABLE}`) : sql.table(MIGRATION_TABLE);
  const { rows } = await sql<{ n: number | string }>`select count(*) as n from ${name}`.execute(db);
  return Number(rows[0]?.n ?? 0);
}
