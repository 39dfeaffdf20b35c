/**
 * Pre-aggregated counts. Three result-count tables at decreasing granularity (the query side picks
 * the smallest that holds every dimension a query groups or filters by) and one per-resource
 * table. A write computes in memory how the counts of the touched reports change (old rows
 * subtracted, new rows added) and applies only the non-zero deltas, sorted by key so concurrent
 * writers lock rows in the same order.
 */
import { fnv1a64 } from "../model/fnv.js";
import type { Status } from "../model/types.js";
import type { ResourceCountsTable, ResultsTable } from "./schema.js";

/** A column of the result-count tables: a dimension, or `cluster` (1 for cluster reports). */
export type CountColumn =
  | "namespace"
  | "source"
  | "category"
  | "policy"
  | "rule"
  | "severity"
  | "status"
  | "kind"
  | "cluster";

/** One result-count table and the columns it is keyed by. */
export interface CountTable {
  readonly table: "namespace_status_counts" | "policy_counts" | "namespace_counts" | "result_counts";
  readonly columns: readonly CountColumn[];
}

/** The result-count tables, smallest first. */
export const COUNT_TABLES: readonly CountTable[] = [
  { table: "namespace_status_counts", columns: ["namespace", "source", "severity", "status"] },
  { table: "policy_counts", columns: ["cluster", "source", "category", "policy", "severity", "status"] },
  { table: "namespace_counts", columns: ["namespace", "source", "category", "severity", "status", "kind"] },
  {
    table: "result_counts",
    columns: ["namespace", "source", "category", "policy", "rule", "severity", "status", "kind"],
  },
];

/** The result columns the aggregates are computed from. */
export type AggregateSource = Pick<
  ResultsTable,
  | "namespace"
  | "source"
  | "category"
  | "policy"
  | "rule"
  | "severity"
  | "status"
  | "resource_kind"
  | "resource_id"
  | "resource_api_version"
  | "resource_name"
  | "resource_namespace"
  | "resource_uid"
>;

/** The columns of {@link AggregateSource}, for selecting old rows. */
export const AGGREGATE_SOURCE_COLUMNS = [
  "namespace",
  "source",
  "category",
  "policy",
  "rule",
  "severity",
  "status",
  "resource_kind",
  "resource_id",
  "resource_api_version",
  "resource_name",
  "resource_namespace",
  "resource_uid",
] as const satisfies readonly (keyof AggregateSource)[];

/** One row change of a result-count table: its key, column values and the count delta. */
export interface CountChange {
  agg_key: string;
  values: Record<string, string | number>;
  total: number;
}

/** The per-resource tables: across categories, and per category. */
export const RESOURCE_TABLES = ["resource_counts", "resource_category_counts"] as const;

/** A per-resource table. */
export type ResourceTable = (typeof RESOURCE_TABLES)[number];

/** Count changes per table, keyed by `agg_key`. */
export interface AggregateDelta {
  readonly counts: Map<CountTable["table"], Map<string, CountChange>>;
  readonly resources: Map<ResourceTable, Map<string, ResourceCountsTable>>;
}

/** An empty delta. */
export function emptyDelta(): AggregateDelta {
  return {
    counts: new Map(COUNT_TABLES.map((t) => [t.table, new Map()])),
    resources: new Map(RESOURCE_TABLES.map((t) => [t, new Map()])),
  };
}

const SEP = "\u0000";

function columnValue(row: AggregateSource, column: CountColumn): string | number {
  if (column === "cluster") return row.namespace === "" ? 1 : 0;
  if (column === "kind") return row.resource_kind;
  return row[column];
}

/** Adds `sign` (+1 for new rows, -1 for removed rows) per row to the delta. */
export function accumulate(delta: AggregateDelta, rows: Iterable<AggregateSource>, sign: 1 | -1): void {
  for (const r of rows) {
    for (const spec of COUNT_TABLES) {
      const values = spec.columns.map((c) => columnValue(r, c));
      // Keyed by the joined values; the stored key (their hash) is computed once per distinct key.
      const joined = values.join(SEP);
      const changes = delta.counts.get(spec.table);
      if (!changes) continue;
      let change = changes.get(joined);
      if (!change) {
        change = {
          agg_key: fnv1a64(joined),
          values: Object.fromEntries(spec.columns.map((c, i) => [c, values[i] ?? ""])),
          total: 0,
        };
        changes.set(joined, change);
      }
      change.total += sign;
    }
    if (!r.resource_id) continue;
    for (const table of RESOURCE_TABLES) {
      const category = table === "resource_counts" ? "" : r.category;
      const joined = `${r.resource_id}${SEP}${r.namespace}${SEP}${r.source}${SEP}${category}`;
      const changes = delta.resources.get(table);
      if (!changes) continue;
      let res = changes.get(joined);
      if (!res) {
        res = {
          agg_key: fnv1a64(joined),
          resource_id: r.resource_id,
          namespace: r.namespace,
          api_version: r.resource_api_version,
          kind: r.resource_kind,
          name: r.resource_name,
          resource_namespace: r.resource_namespace,
          uid: r.resource_uid,
          source: r.source,
          category,
          pass: 0,
          fail: 0,
          warn: 0,
          error: 0,
          skip: 0,
        };
        changes.set(joined, res);
      }
      res[r.status as Status] += sign;
    }
  }
}

function byKey<T extends { agg_key: string }>(a: T, b: T): number {
  return a.agg_key < b.agg_key ? -1 : a.agg_key > b.agg_key ? 1 : 0;
}

/** The non-zero changes of one result-count table, sorted by key. */
export function countChanges(delta: AggregateDelta, table: CountTable["table"]): CountChange[] {
  return [...(delta.counts.get(table)?.values() ?? [])].filter((c) => c.total !== 0).sort(byKey);
}

/** The non-zero changes of one per-resource table, sorted by key. */
export function resourceChanges(delta: AggregateDelta, table: ResourceTable): ResourceCountsTable[] {
  return [...(delta.resources.get(table)?.values() ?? [])]
    .filter((r) => r.pass !== 0 || r.fail !== 0 || r.warn !== 0 || r.error !== 0 || r.skip !== 0)
    .sort(byKey);
}
