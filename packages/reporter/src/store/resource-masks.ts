/**
 * The number of per-resource rows, pre-aggregated: `resource_status_counts` counts the rows of
 * `resource_counts` (`per_category` 0) and of `resource_category_counts` (1) per (namespace,
 * source, kind, category, status mask), where the mask has bit i set when the row counts at least
 * one result of `STATUS_COLUMNS[i]`. A page of the resource list then gets its total by summing a
 * few hundred rows — the rows whose mask meets the status filter — instead of counting every
 * matching resource row (99,000 at 1,000,000 results: 14–23 ms of one CPU on PostgreSQL per
 * request, growing with the cluster).
 *
 * A write reads the stored counts of the resource rows it changes (by primary key, in the same
 * transaction), so it knows each row's mask before and after: the only extra read of the write
 * path. The reporter has one writer per database (the leader), so no other transaction moves a
 * row's mask in between.
 */
import { type Kysely, type SqlBool, sql, type Transaction } from "kysely";
import { fnv1a64 } from "../model/fnv.js";
import type { ResourceTable } from "./aggregates.js";
import type { Database, ResourceCountsTable, ResourceStatusCountsTable } from "./schema.js";
import type { ResultFilter } from "./types.js";

/** The status columns in mask bit order (bit 0 is `pass`). */
export const MASK_STATUSES = ["pass", "fail", "warn", "error", "skip"] as const;

type StatusCounts = Pick<ResourceCountsTable, (typeof MASK_STATUSES)[number]>;

/** The mask of a row's counts: bit i set when `MASK_STATUSES[i]` counts more than zero. */
export function statusMask(counts: StatusCounts): number {
  let mask = 0;
  MASK_STATUSES.forEach((s, i) => {
    if (counts[s] > 0) mask |= 1 << i;
  });
  return mask;
}

/** The primary key of one `resource_status_counts` row (also used by the migration's backfill). */
export function maskKey(row: Omit<ResourceStatusCountsTable, "agg_key" | "total">): string {
  return fnv1a64(
    [row.per_category, row.namespace, row.source, row.kind, row.category, row.mask].join("\u0000"),
  );
}

/** `resource_status_counts` row changes, keyed by `agg_key`. */
export type MaskDelta = Map<string, ResourceStatusCountsTable>;

function add(delta: MaskDelta, row: ResourceCountsTable, perCategory: number, mask: number, n: number) {
  const values = {
    per_category: perCategory,
    namespace: row.namespace,
    source: row.source,
    kind: row.kind,
    category: row.category,
    mask,
  };
  const agg_key = maskKey(values);
  const entry = delta.get(agg_key) ?? { agg_key, ...values, total: 0 };
  entry.total += n;
  delta.set(agg_key, entry);
}

/**
 * Adds to `delta` how the changes of one per-resource table move its rows between masks: each
 * changed row leaves its stored mask (read here) and enters the mask of its new counts (none when
 * every count reaches zero, as the row is then deleted).
 */
export async function accumulateMasks(
  trx: Transaction<Database>,
  table: ResourceTable,
  changes: readonly ResourceCountsTable[],
  delta: MaskDelta,
): Promise<void> {
  const perCategory = table === "resource_category_counts" ? 1 : 0;
  const stored = new Map<string, StatusCounts>();
  for (let i = 0; i < changes.length; i += 1000) {
    const keys = changes.slice(i, i + 1000).map((c) => c.agg_key);
    const rows = await trx
      .selectFrom(table)
      .select(["agg_key", ...MASK_STATUSES])
      .where("agg_key", "in", keys)
      .execute();
    for (const row of rows) stored.set(row.agg_key, row);
  }
  for (const change of changes) {
    const old = stored.get(change.agg_key);
    const before = old ? statusMask(old) : 0;
    const after = statusMask({
      pass: (old?.pass ?? 0) + change.pass,
      fail: (old?.fail ?? 0) + change.fail,
      warn: (old?.warn ?? 0) + change.warn,
      error: (old?.error ?? 0) + change.error,
      skip: (old?.skip ?? 0) + change.skip,
    });
    if (before === after) continue;
    if (before) add(delta, change, perCategory, before, -1);
    if (after) add(delta, change, perCategory, after, 1);
  }
}

/** The non-zero changes, sorted by key (writers lock rows in the same order). */
export function maskChanges(delta: MaskDelta): ResourceStatusCountsTable[] {
  return [...delta.values()]
    .filter((r) => r.total !== 0)
    .sort((a, b) => (a.agg_key < b.agg_key ? -1 : a.agg_key > b.agg_key ? 1 : 0));
}

/**
 * The number of rows the resource list has for `filter`, from `resource_status_counts`, or
 * `undefined` when the filter needs the rows themselves (resource names, one resource, a search)
 * or counts resources across several categories (a resource in two of them is one row of the
 * grouped list but counted in both categories). Only for filters `fitsResourceCounts` accepts.
 */
export async function countResourceRows(
  db: Kysely<Database>,
  filter: ResultFilter,
  byCategory: boolean,
): Promise<number | undefined> {
  const categories = filter.categories ?? [];
  if (filter.resources?.length || filter.resourceId || filter.search) return undefined;
  if (!byCategory && categories.length > 1) return undefined;
  const perCategory = byCategory || categories.length > 0 ? 1 : 0;
  const col = (name: keyof ResourceStatusCountsTable) => sql.ref(`resource_status_counts.${name}`);
  const inList = (name: keyof ResourceStatusCountsTable, values: readonly (string | number)[]) =>
    sql<SqlBool>`${col(name)} in (${sql.join(values)})`;
  const c = [sql<SqlBool>`${col("per_category")} = ${perCategory}`];
  if (filter.scope)
    c.push(sql<SqlBool>`${col("namespace")} ${sql.raw(filter.scope === "cluster" ? "=" : ">")} ''`);
  if (filter.namespaces?.length) c.push(inList("namespace", filter.namespaces));
  if (filter.kinds?.length) c.push(inList("kind", filter.kinds));
  if (filter.sources?.length) c.push(inList("source", filter.sources));
  if (categories.length) c.push(inList("category", categories));
  if (filter.status?.length) {
    // The masks with a bit of a filtered status: the rows counting at least one such result.
    let wanted = 0;
    for (const s of filter.status) {
      const bit = (MASK_STATUSES as readonly string[]).indexOf(s);
      if (bit >= 0) wanted |= 1 << bit;
    }
    const masks = Array.from({ length: 31 }, (_, i) => i + 1).filter((m) => (m & wanted) !== 0);
    c.push(inList("mask", masks));
  }
  const { rows } = await sql<{
    n: unknown;
  }>`select sum(${col("total")}) as ${sql.ref("n")} from ${sql.table("resource_status_counts")} where ${sql.join(
    c,
    sql` and `,
  )}`.execute(db);
  return Number(rows[0]?.n ?? 0);
}
