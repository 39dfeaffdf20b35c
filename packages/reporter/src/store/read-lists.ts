/**
 * Paginated lists: results, per-resource counts, resources and reports. Counts for pagination come
 * from the pre-aggregated tables when the filter fits; pages follow the indexed default order
 * (namespace, resource name, policy, …) with any requested sort keys in front.
 */
import { type Expression, type Kysely, sql } from "kysely";
import type { ResourceRef, Severity, Status } from "../model/types.js";
import type { ResourceTable } from "./aggregates.js";
import { countResourceRows } from "./resource-masks.js";
import type { Database } from "./schema.js";
import type {
  Page,
  Pagination,
  ReportFilter,
  ReportRow,
  ResourceCountRow,
  ResultFilter,
  ResultRow,
  StoreDialect,
} from "./types.js";
import {
  countsWhere,
  fitsResourceCounts,
  pickCountTable,
  type ResolvedSearch,
  reportsWhere,
  resolveSearch,
  resourceCountsWhere,
  resultsWhere,
} from "./where.js";

type Row = Record<string, unknown>;
type Sortable = Record<string, Expression<unknown>>;

const severityRank = (column: string) =>
  sql`case ${sql.ref(column)} when 'critical' then 5 when 'high' then 4 when 'medium' then 3 when 'low' then 2 when 'info' then 1 else 0 end`;

const RESULT_SORT: Sortable = {
  namespace: sql.ref("results.namespace"),
  kind: sql.ref("results.resource_kind"),
  name: sql.ref("results.resource_name"),
  resource: sql.ref("results.resource_name"),
  policy: sql.ref("results.policy"),
  rule: sql.ref("results.rule"),
  status: sql.ref("results.status"),
  severity: severityRank("results.severity"),
  source: sql.ref("results.source"),
  category: sql.ref("results.category"),
  timestamp: sql.ref("results.ts"),
  message: sql.ref("results.message"),
};
const RESULT_ORDER = [
  "results.namespace",
  "results.resource_name",
  "results.policy",
  "results.report_id",
  "results.id",
];

const RESOURCE_SORT: Sortable = {
  namespace: sql.ref("namespace"),
  kind: sql.ref("kind"),
  name: sql.ref("name"),
  resource: sql.ref("name"),
  source: sql.ref("source"),
  category: sql.ref("category"),
};

const REPORT_SORT: Sortable = {
  namespace: sql.ref("reports.namespace"),
  name: sql.ref("reports.name"),
  source: sql.ref("reports.source"),
};

/** The ORDER BY items: requested keys first, then the tie-breaking default order. */
function ordering(
  pagination: Pagination | undefined,
  known: Sortable,
  tail: readonly string[],
): Expression<unknown>[] {
  const out: Expression<unknown>[] = [];
  for (const key of pagination?.sortBy ?? []) {
    const expr = known[key];
    if (expr !== undefined) out.push(expr);
  }
  for (const col of tail) out.push(sql.ref(col));
  return out;
}

/** The part of a select builder {@link paged} uses. */
interface Orderable<Q> {
  orderBy(expression: Expression<unknown>, direction: "asc" | "desc"): Q;
  limit(limit: number): Q;
  offset(offset: number): Q;
}

function paged<Q extends Orderable<Q>>(
  query: Q,
  order: Expression<unknown>[],
  pagination: Pagination | undefined,
): Q {
  let q = query;
  const direction = pagination?.direction === "desc" ? "desc" : "asc";
  for (const o of order) q = q.orderBy(o, direction);
  if (pagination) q = q.limit(pagination.offset).offset((pagination.page - 1) * pagination.offset);
  return q;
}

function text(row: Row, key: string): string {
  const value = row[key];
  return value === null || value === undefined ? "" : String(value);
}

function parseRecord(value: unknown): Record<string, string> {
  try {
    const parsed: unknown = JSON.parse(String(value || "{}"));
    return typeof parsed === "object" && parsed !== null ? (parsed as Record<string, string>) : {};
  } catch {
    return {};
  }
}

/** See `ReportStore.results`. */
export async function results(
  db: Kysely<Database>,
  dialect: StoreDialect,
  filter: ResultFilter,
  pagination?: Pagination,
): Promise<Page<ResultRow>> {
  const search = await resolveSearch(db, dialect, filter);
  const query = db
    .selectFrom("results")
    .selectAll()
    .where(resultsWhere(filter, dialect, search));
  const rows: Row[] = await paged(
    query,
    ordering(pagination, RESULT_SORT, RESULT_ORDER),
    pagination,
  ).execute();
  const items = rows.map(
    (row): ResultRow => ({
      id: text(row, "id"),
      reportId: text(row, "report_id"),
      namespace: text(row, "namespace"),
      source: text(row, "source"),
      policy: text(row, "policy"),
      rule: text(row, "rule"),
      status: text(row, "status") as Status,
      severity: text(row, "severity") as Severity | "",
      category: text(row, "category"),
      message: text(row, "message"),
      scored: Number(row.scored) !== 0,
      timestamp: Number(row.ts),
      properties: parseRecord(row.properties),
      resource: row.resource_id
        ? {
            id: text(row, "resource_id"),
            apiVersion: text(row, "resource_api_version"),
            kind: text(row, "resource_kind"),
            name: text(row, "resource_name"),
            namespace: text(row, "resource_namespace"),
            uid: text(row, "resource_uid"),
          }
        : undefined,
    }),
  );
  if (!pagination) return { items, count: items.length };
  return { items, count: await countResults(db, dialect, filter, search) };
}

async function countResults(
  db: Kysely<Database>,
  dialect: StoreDialect,
  filter: ResultFilter,
  search: ResolvedSearch | undefined,
): Promise<number> {
  const spec = pickCountTable([], filter);
  if (spec) {
    const { rows } = await sql<{
      n: unknown;
    }>`select sum(${sql.ref(`${spec.table}.total`)}) as ${sql.ref("n")} from ${sql.table(
      spec.table,
    )} where ${countsWhere(spec, filter)}`.execute(db);
    return Number(rows[0]?.n ?? 0);
  }
  const row = await db
    .selectFrom("results")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where(resultsWhere(filter, dialect, search))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

const STATUS_COLUMNS = ["pass", "fail", "warn", "error", "skip"] as const;

/**
 * The per-resource count query. From `resource_counts` (one row per resource and source) or
 * `resource_category_counts` (per category too; summed when several categories are filtered for a
 * per-source list), else by grouping `results`. Every variant exposes the same column names.
 */
function resourceCountQuery(
  db: Kysely<Database>,
  dialect: StoreDialect,
  filter: ResultFilter,
  byCategory: boolean,
  countOnly: boolean,
  search: ResolvedSearch | undefined,
) {
  const group = ["namespace", "name", "resource_id", "source", ...(byCategory ? ["category"] : [])];
  const carried = countOnly ? [] : ["api_version", "kind", "resource_namespace", "uid"];
  const grouped = countOnly ? [] : group;
  if (fitsResourceCounts(filter)) {
    const table: ResourceTable =
      byCategory || filter.categories?.length ? "resource_category_counts" : "resource_counts";
    const where = resourceCountsWhere(table, filter, dialect);
    if (table === "resource_counts" || byCategory) {
      // One row per item: a page streams from the `*_list` index, the count is a plain count.
      return db
        .selectFrom(table)
        .select(sql<number>`1`.as("one"))
        .select(
          [...grouped, ...carried, ...(countOnly ? [] : STATUS_COLUMNS)].map((c) =>
            sql<string>`${sql.ref(c)}`.as(c),
          ),
        )
        .where(where);
    }
    return db
      .selectFrom(table)
      .select(sql<number>`1`.as("one"))
      .select(grouped.map((c) => sql<string>`${sql.ref(c)}`.as(c)))
      .select(carried.map((c) => sql<string>`max(${sql.ref(c)})`.as(c)))
      .select((countOnly ? [] : STATUS_COLUMNS).map((s) => sql<number>`sum(${sql.ref(s)})`.as(s)))
      .where(where)
      .groupBy(group.map((c) => sql.ref(c)));
  }
  const column: Record<string, string> = {
    api_version: "resource_api_version",
    kind: "resource_kind",
    name: "resource_name",
    uid: "resource_uid",
  };
  const ref = (c: string) => sql.ref(`results.${column[c] ?? c}`);
  return db
    .selectFrom("results")
    .select(sql<number>`1`.as("one"))
    .select(grouped.map((c) => sql<string>`${ref(c)}`.as(c)))
    .select(carried.map((c) => sql<string>`max(${ref(c)})`.as(c)))
    .select(
      (countOnly ? [] : STATUS_COLUMNS).map((s) =>
        sql<number>`sum(case when ${sql.ref("results.status")} = ${s} then 1 else 0 end)`.as(s),
      ),
    )
    .where(resultsWhere(filter, dialect, search))
    .where("results.resource_id", "<>", "")
    .groupBy(group.map(ref));
}

/** See `ReportStore.resourceCounts`. With a status filter, only those statuses are counted. */
export async function resourceCounts(
  db: Kysely<Database>,
  dialect: StoreDialect,
  filter: ResultFilter,
  options: { byCategory: boolean; pagination?: Pagination | undefined },
): Promise<Page<ResourceCountRow>> {
  const { byCategory, pagination } = options;
  const tail = ["namespace", "name", "resource_id", "source", ...(byCategory ? ["category"] : [])];
  const search = fitsResourceCounts(filter) ? undefined : await resolveSearch(db, dialect, filter);
  const query = resourceCountQuery(db, dialect, filter, byCategory, false, search);
  const rows: Row[] = await paged(query, ordering(pagination, RESOURCE_SORT, tail), pagination).execute();
  const selected = new Set<string>(filter.status?.length ? filter.status : STATUS_COLUMNS);
  const items = rows.map((row) => {
    const count = (s: Status) => (selected.has(s) ? Number(row[s] ?? 0) : 0);
    return {
      resource: {
        id: text(row, "resource_id"),
        apiVersion: text(row, "api_version"),
        kind: text(row, "kind"),
        name: text(row, "name"),
        namespace: text(row, "resource_namespace"),
        uid: text(row, "uid"),
      },
      namespace: text(row, "namespace"),
      source: text(row, "source"),
      category: byCategory ? text(row, "category") : "",
      pass: count("pass"),
      fail: count("fail"),
      warn: count("warn"),
      error: count("error"),
      skip: count("skip"),
    };
  });
  if (!pagination) return { items, count: items.length };
  if (fitsResourceCounts(filter)) {
    const count = await countResourceRows(db, filter, byCategory);
    if (count !== undefined) return { items, count };
  }
  const groups = resourceCountQuery(db, dialect, filter, byCategory, true, search);
  const { rows: counted } = await sql<{
    n: unknown;
  }>`select count(*) as ${sql.ref("n")} from (${groups}) as ${sql.ref("groups")}`.execute(db);
  return { items, count: Number(counted[0]?.n ?? 0) };
}

/** See `ReportStore.resources`. */
export async function resources(
  db: Kysely<Database>,
  dialect: StoreDialect,
  filter: ResultFilter,
): Promise<ResourceRef[]> {
  const page = await resourceCounts(db, dialect, filter, { byCategory: false });
  const seen = new Map<string, ResourceRef>();
  for (const row of page.items) if (!seen.has(row.resource.id)) seen.set(row.resource.id, row.resource);
  return [...seen.values()];
}

/** See `ReportStore.resource`. */
export async function resource(db: Kysely<Database>, id: string): Promise<ResourceRef | undefined> {
  const row = await db
    .selectFrom("resource_counts")
    .select(["resource_id", "api_version", "kind", "name", "resource_namespace", "uid"])
    .where("resource_id", "=", id)
    .limit(1)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    id: row.resource_id,
    apiVersion: row.api_version,
    kind: row.kind,
    name: row.name,
    namespace: row.resource_namespace,
    uid: row.uid,
  };
}

/** See `ReportStore.reports`. */
export async function reports(
  db: Kysely<Database>,
  dialect: StoreDialect,
  filter: ReportFilter,
  pagination?: Pagination,
): Promise<Page<ReportRow>> {
  const where = reportsWhere(filter, dialect);
  const query = db.selectFrom("reports").selectAll().where(where);
  const order = ordering(pagination, REPORT_SORT, ["reports.namespace", "reports.name", "reports.id"]);
  const rows: Row[] = await paged(query, order, pagination).execute();
  const items = rows.map(
    (row): ReportRow => ({
      id: text(row, "id"),
      kind: text(row, "kind"),
      name: text(row, "name"),
      namespace: text(row, "namespace"),
      source: text(row, "source"),
      labels: parseRecord(row.labels),
      pass: Number(row.pass),
      fail: Number(row.fail),
      warn: Number(row.warn),
      error: Number(row.error),
      skip: Number(row.skip),
    }),
  );
  if (!pagination) return { items, count: items.length };
  const counted = await db
    .selectFrom("reports")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where(where)
    .executeTakeFirst();
  return { items, count: Number(counted?.n ?? 0) };
}
