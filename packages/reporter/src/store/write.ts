/**
 * The write path: a batch of upserts and deletes in one transaction. An upsert replaces the
 * report's rows (delete + re-insert, as upstream) unless the stored copy is identical; the
 * pre-aggregated counts are adjusted by delta in the same transaction.
 */
import type { Kysely, Transaction } from "kysely";
import { fnv1a64 } from "../model/fnv.js";
import { countStatuses, type Report } from "../model/types.js";
import {
  AGGREGATE_SOURCE_COLUMNS,
  type AggregateDelta,
  type AggregateSource,
  accumulate,
  COUNT_TABLES,
  countChanges,
  emptyDelta,
  RESOURCE_TABLES,
  resourceChanges,
} from "./aggregates.js";
import { deleteEmpty, insertRows } from "./bulk.js";
import { isTransient, toStoreError } from "./errors.js";
import { accumulateMasks, type MaskDelta, maskChanges } from "./resource-masks.js";
import type {
  Database,
  ReportLabelsTable,
  ReportsTable,
  ResourceStatusCountsTable,
  ResultsTable,
} from "./schema.js";
import type { StoreDialect, WriteOp, WriteSummary } from "./types.js";

/** Attempts for a transaction that hits a deadlock or a busy database. */
const ATTEMPTS = 4;

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** The result rows of a report. */
export function resultRows(report: Report): ResultsTable[] {
  return report.results.map((r) => ({
    report_id: report.id,
    id: r.id,
    namespace: report.namespace,
    source: r.source,
    policy: r.policy,
    rule: r.rule,
    status: r.status,
    severity: r.severity,
    category: r.category,
    message: r.message,
    scored: r.scored ? 1 : 0,
    ts: r.timestamp,
    properties: JSON.stringify(r.properties),
    resource_id: r.resource?.id ?? "",
    resource_api_version: r.resource?.apiVersion ?? "",
    resource_kind: r.resource?.kind ?? "",
    resource_name: r.resource?.name ?? "",
    resource_namespace: r.resource?.namespace ?? "",
    resource_uid: r.resource?.uid ?? "",
  }));
}

function reportRow(report: Report, hash: string): ReportsTable {
  return {
    id: report.id,
    kind: report.kind,
    name: report.name,
    namespace: report.namespace,
    source: report.source,
    labels: JSON.stringify(report.labels),
    scope: report.scope ? JSON.stringify(report.scope) : "",
    ...countStatuses(report.results),
    created: report.created,
    content_hash: hash,
  };
}

/** Writes the batch (see {@link ReportStore.write}); retries transient failures, wraps the rest. */
export async function writeOps(
  db: Kysely<Database>,
  dialect: StoreDialect,
  ops: readonly WriteOp[],
): Promise<WriteSummary> {
  const last = new Map<string, WriteOp>();
  for (const op of ops) last.set(op.type === "upsert" ? op.report.id : op.reportId, op);
  const hashes = new Map<string, string>();
  for (const op of last.values()) {
    if (op.type === "upsert") hashes.set(op.report.id, fnv1a64(JSON.stringify(op.report)));
  }
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().execute((trx) => apply(trx, dialect, last, hashes));
    } catch (err) {
      if (attempt >= ATTEMPTS || !isTransient(err)) throw toStoreError(err, "write");
    }
  }
}

async function apply(
  trx: Transaction<Database>,
  dialect: StoreDialect,
  ops: Map<string, WriteOp>,
  hashes: Map<string, string>,
): Promise<WriteSummary> {
  const existing = new Map<string, string>();
  for (const ids of chunks([...ops.keys()], 1000)) {
    const rows = await trx
      .selectFrom("reports")
      .select(["id", "content_hash"])
      .where("id", "in", ids)
      .execute();
    for (const row of rows) existing.set(row.id, row.content_hash);
  }
  const summary: WriteSummary = { upserted: 0, unchanged: 0, deleted: 0, resultsWritten: 0 };
  const fresh: Report[] = [];
  const replaced: string[] = [];
  for (const [id, op] of ops) {
    if (op.type === "upsert") {
      if (existing.get(id) === hashes.get(id)) {
        summary.unchanged++;
        continue;
      }
      fresh.push(op.report);
      summary.upserted++;
    } else if (existing.has(id)) summary.deleted++;
    if (existing.has(id)) replaced.push(id);
  }
  const delta = emptyDelta();
  for (const ids of chunks(replaced, 500)) {
    const old: AggregateSource[] = await trx
      .selectFrom("results")
      .select(AGGREGATE_SOURCE_COLUMNS)
      .where("report_id", "in", ids)
      .execute();
    accumulate(delta, old, -1);
    await trx.deleteFrom("results").where("report_id", "in", ids).execute();
    await trx.deleteFrom("report_labels").where("report_id", "in", ids).execute();
    await trx.deleteFrom("reports").where("id", "in", ids).execute();
  }
  const results: ResultsTable[] = [];
  const labels: ReportLabelsTable[] = [];
  const reports: ReportsTable[] = [];
  for (const report of fresh) {
    const rows = resultRows(report);
    accumulate(delta, rows, 1);
    for (const row of rows) results.push(row);
    for (const [key, value] of Object.entries(report.labels)) {
      labels.push({ report_id: report.id, label_key: key, label_value: value });
    }
    reports.push(reportRow(report, hashes.get(report.id) ?? ""));
  }
  summary.resultsWritten = results.length;
  await insertRows(trx, dialect, "reports", REPORT_COLUMNS, reports);
  await insertRows(trx, dialect, "results", RESULT_COLUMNS, results);
  await insertRows(trx, dialect, "report_labels", ["report_id", "label_key", "label_value"], labels);
  await applyDelta(trx, dialect, delta);
  return summary;
}

const STATUS_COLUMNS = ["pass", "fail", "warn", "error", "skip"] as const;
const REPORT_COLUMNS = [
  "id",
  "kind",
  "name",
  "namespace",
  "source",
  "labels",
  "scope",
  ...STATUS_COLUMNS,
  "created",
  "content_hash",
] as const satisfies readonly (keyof ReportsTable)[];
const RESULT_COLUMNS = [
  "report_id",
  "id",
  "namespace",
  "source",
  "policy",
  "rule",
  "status",
  "severity",
  "category",
  "message",
  "scored",
  "ts",
  "properties",
  "resource_id",
  "resource_api_version",
  "resource_kind",
  "resource_name",
  "resource_namespace",
  "resource_uid",
] as const satisfies readonly (keyof ResultsTable)[];
const RESOURCE_COLUMNS = [
  "agg_key",
  "resource_id",
  "namespace",
  "api_version",
  "kind",
  "name",
  "resource_namespace",
  "uid",
  "source",
  "category",
  ...STATUS_COLUMNS,
] as const;

const MASK_COLUMNS = [
  "agg_key",
  "per_category",
  "namespace",
  "source",
  "kind",
  "category",
  "mask",
  "total",
] as const satisfies readonly (keyof ResourceStatusCountsTable)[];

/** Applies the count changes: upsert with increment, then drop rows that reached zero. */
async function applyDelta(
  trx: Transaction<Database>,
  dialect: StoreDialect,
  delta: AggregateDelta,
): Promise<void> {
  for (const spec of COUNT_TABLES) {
    const changes = countChanges(delta, spec.table);
    const rows: Record<string, string | number>[] = changes.map((c) => ({
      ...c.values,
      agg_key: c.agg_key,
      total: c.total,
    }));
    await insertRows(trx, dialect, spec.table, ["agg_key", ...spec.columns, "total"], rows, {
      key: "agg_key",
      increment: ["total"],
    });
    const shrunk = changes.filter((c) => c.total < 0).map((c) => c.agg_key);
    await deleteEmpty(trx, spec.table, shrunk, ["total"]);
  }
  const masks: MaskDelta = new Map();
  for (const table of RESOURCE_TABLES) {
    const changes = resourceChanges(delta, table);
    // Before the counts change: the rows' stored masks.
    await accumulateMasks(trx, table, changes, masks);
    await insertRows(trx, dialect, table, RESOURCE_COLUMNS, changes, {
      key: "agg_key",
      increment: STATUS_COLUMNS,
    });
    const shrunk = changes.filter((r) => STATUS_COLUMNS.some((c) => r[c] < 0)).map((r) => r.agg_key);
    await deleteEmpty(trx, table, shrunk, STATUS_COLUMNS);
  }
  const maskRows = maskChanges(masks);
  await insertRows(trx, dialect, "resource_status_counts", MASK_COLUMNS, maskRows, {
    key: "agg_key",
    increment: ["total"],
  });
  const fewer = maskRows.filter((r) => r.total < 0).map((r) => r.agg_key);
  await deleteEmpty(trx, "resource_status_counts", fewer, ["total"]);
}
