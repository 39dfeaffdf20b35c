/**
 * Grouped counts and distinct values: served from `result_counts` whenever the filter fits it,
 * else by grouping `results` directly.
 */
import { type Kysely, sql } from "kysely";
import { SEVERITIES, type Severity, STATUSES, type StatusCounts } from "../model/types.js";
import type { Database } from "./schema.js";
import type { CountRow, Dimension, PolicyCountRow, ResultFilter, StoreDialect } from "./types.js";
import { countsWhere, pickCountTable, resolveSearch, resultsWhere } from "./where.js";

/** The `results` column behind each dimension (`result_counts` uses the dimension name). */
const RESULT_COLUMN: Record<Dimension, string> = {
  namespace: "namespace",
  source: "source",
  category: "category",
  policy: "policy",
  rule: "rule",
  severity: "severity",
  status: "status",
  kind: "resource_kind",
};

function toRows<D extends Dimension>(
  dimensions: readonly D[],
  rows: readonly Record<string, unknown>[],
): CountRow<D>[] {
  const out: CountRow<D>[] = [];
  for (const row of rows) {
    const count = Number(row.count ?? 0);
    if (!(count > 0)) continue;
    const entry: Record<string, string | number> = { count };
    for (const d of dimensions) entry[d] = String(row[d] ?? "");
    out.push(entry as CountRow<D>);
  }
  return out;
}

/** See `ReportStore.countBy`. */
export async function countBy<D extends Dimension>(
  db: Kysely<Database>,
  dialect: StoreDialect,
  dimensions: readonly D[],
  filter: ResultFilter,
): Promise<CountRow<D>[]> {
  const spec = pickCountTable(dimensions, filter);
  if (spec) {
    const col = (d: string) => sql.ref(`${spec.table}.${d}`);
    const select = [
      ...dimensions.map((d) => sql`${col(d)} as ${sql.ref(d)}`),
      sql`sum(${col("total")}) as ${sql.ref("count")}`,
    ];
    const cols = dimensions.map(col);
    const grouping = cols.length ? sql` group by ${sql.join(cols)} order by ${sql.join(cols)}` : sql``;
    const { rows } = await sql<
      Record<string, unknown>
    >`select ${sql.join(select)} from ${sql.table(spec.table)} where ${countsWhere(
      spec,
      filter,
    )}${grouping}`.execute(db);
    return toRows(dimensions, rows);
  }
  const search = await resolveSearch(db, dialect, filter);
  const cols = dimensions.map((d) => sql.ref(`results.${RESULT_COLUMN[d]}`));
  let q = db
    .selectFrom("results")
    .select(dimensions.map((d) => sql<string>`${sql.ref(`results.${RESULT_COLUMN[d]}`)}`.as(d)))
    .select((eb) => eb.fn.countAll<number>().as("count"))
    .where(resultsWhere(filter, dialect, search));
  if (cols.length > 0) q = q.groupBy(cols);
  for (const col of cols) q = q.orderBy(col);
  return toRows(dimensions, await q.execute());
}

const POLICY_DIMENSIONS = ["source", "category", "policy", "severity", "status"] as const;

/** A severity's rank (its index in SEVERITIES); -1 for none or an unknown one. */
function rank(severity: string | undefined): number {
  return severity ? (SEVERITIES as readonly string[]).indexOf(severity) : -1;
}

/**
 * See `ReportStore.policyCounts`. From a count table the database groups by policy — one row per
 * policy with a column per status and the highest severity's rank — instead of returning a row per
 * (policy, severity, status) for the caller to fold: at 1,000,000 results ~540 rows instead of
 * ~5,400. Otherwise the grouped counts are folded here.
 */
export async function policyCounts(
  db: Kysely<Database>,
  dialect: StoreDialect,
  filter: ResultFilter,
): Promise<PolicyCountRow[]> {
  const spec = pickCountTable(POLICY_DIMENSIONS, filter);
  if (!spec) {
    const policies = new Map<string, PolicyCountRow>();
    for (const row of await countBy(db, dialect, POLICY_DIMENSIONS, filter)) {
      const key = `${row.source}\u0000${row.category}\u0000${row.policy}`;
      let policy = policies.get(key);
      if (!policy) {
        policy = {
          source: row.source,
          category: row.category,
          policy: row.policy,
          severity: undefined,
          results: { pass: 0, fail: 0, warn: 0, error: 0, skip: 0 },
        };
        policies.set(key, policy);
      }
      if (rank(row.severity) > rank(policy.severity)) policy.severity = row.severity as Severity;
      if ((STATUSES as readonly string[]).includes(row.status))
        policy.results[row.status as keyof StatusCounts] += row.count;
    }
    return [...policies.values()];
  }
  const col = (d: string) => sql.ref(`${spec.table}.${d}`);
  const rankCase = sql.join(
    SEVERITIES.map((s, i) => sql`when ${sql.lit(s)} then ${sql.lit(i)}`),
    sql` `,
  );
  const statusSums = STATUSES.map(
    (s) =>
      sql`sum(case when ${col("status")} = ${sql.lit(s)} then ${col("total")} else 0 end) as ${sql.ref(s)}`,
  );
  const groups = [col("source"), col("category"), col("policy")];
  const { rows } = await sql<Record<string, unknown>>`select ${col("source")} as ${sql.ref("source")}, ${col(
    "category",
  )} as ${sql.ref("category")}, ${col("policy")} as ${sql.ref("policy")}, max(case ${col(
    "severity",
  )} ${rankCase} else -1 end) as ${sql.ref("severity_rank")}, ${sql.join(statusSums)} from ${sql.table(
    spec.table,
  )} where ${countsWhere(spec, filter)} group by ${sql.join(groups)}`.execute(db);
  const out: PolicyCountRow[] = [];
  for (const row of rows) {
    // Every group has results: the count tables' condition keeps only positive totals.
    const results: StatusCounts = { pass: 0, fail: 0, warn: 0, error: 0, skip: 0 };
    for (const s of STATUSES) results[s] = Number(row[s] ?? 0);
    out.push({
      source: String(row.source ?? ""),
      category: String(row.category ?? ""),
      policy: String(row.policy ?? ""),
      severity: SEVERITIES[Number(row.severity_rank ?? -1)],
      results,
    });
  }
  return out;
}

/** See `ReportStore.values`: distinct non-empty values of one dimension. */
export async function values(
  db: Kysely<Database>,
  dialect: StoreDialect,
  dimension: Dimension,
  filter: ResultFilter,
): Promise<string[]> {
  const rows = await countBy(db, dialect, [dimension], filter);
  return rows.map((r) => r[dimension]).filter((v) => v !== "");
}

/** The JSON path expression selecting one property of `results.properties`. */
function propertyExpression(dialect: StoreDialect, property: string) {
  const col = sql.ref("results.properties");
  if (dialect === "postgres") return sql<string | null>`(${col}::jsonb ->> ${property})`;
  const path = `$."${property.replace(/["\\]/g, "\\$&")}"`;
  if (dialect === "mysql") return sql<string | null>`json_unquote(json_extract(${col}, ${path}))`;
  return sql<string | null>`json_extract(${col}, ${path})`;
}

/** See `ReportStore.propertyValues`. */
export async function propertyValues(
  db: Kysely<Database>,
  dialect: StoreDialect,
  property: string,
  filter: ResultFilter,
): Promise<string[]> {
  const value = propertyExpression(dialect, property);
  const search = await resolveSearch(db, dialect, filter);
  const rows = await db
    .selectFrom("results")
    .select(value.as("value"))
    .distinct()
    .where(resultsWhere(filter, dialect, search))
    .where(sql<boolean>`${value} is not null`)
    .orderBy("value")
    .execute();
  return rows.map((r) => String(r.value)).filter((v) => v !== "");
}
