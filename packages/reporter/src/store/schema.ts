/**
 * The tables as kysely sees them. `results` holds one row per result (an update is delete +
 * re-insert of a report's rows); `*_counts` are pre-aggregated counts at three granularities plus
 * per resource, kept in step inside the same transaction, so dashboard queries never scan `results`.
 */

/** `reports`: one row per report. */
export interface ReportsTable {
  id: string;
  kind: string;
  name: string;
  namespace: string;
  source: string;
  /** JSON object of the report's labels. */
  labels: string;
  /** JSON of the scope reference, or `""`. */
  scope: string;
  pass: number;
  fail: number;
  warn: number;
  error: number;
  skip: number;
  created: number;
  /** fnv-1a 64 of the normalised report: identical re-deliveries are skipped. */
  content_hash: string;
}

/** `results`: one row per result. */
export interface ResultsTable {
  report_id: string;
  id: string;
  /** The report's namespace (`""` for cluster reports). */
  namespace: string;
  source: string;
  policy: string;
  rule: string;
  status: string;
  /** `""` when unknown. */
  severity: string;
  category: string;
  message: string;
  scored: number;
  ts: number;
  /** JSON object of the result's properties. */
  properties: string;
  /** `""` when the result names no resource. */
  resource_id: string;
  resource_api_version: string;
  resource_kind: string;
  resource_name: string;
  resource_namespace: string;
  resource_uid: string;
}

/** `report_labels`: one row per report label, for the `labels[]` filter. */
export interface ReportLabelsTable {
  report_id: string;
  label_key: string;
  label_value: string;
}

/** `result_counts`: number of results per (namespace, source, category, policy, rule, severity, status, kind). */
export interface ResultCountsTable {
  /** fnv-1a 64 of the other key columns. */
  agg_key: string;
  namespace: string;
  source: string;
  category: string;
  policy: string;
  rule: string;
  severity: string;
  status: string;
  kind: string;
  total: number;
}

/** `namespace_status_counts`: number of results per (namespace, source, severity, status). */
export interface NamespaceStatusCountsTable {
  agg_key: string;
  namespace: string;
  source: string;
  severity: string;
  status: string;
  total: number;
}

/** `namespace_counts`: number of results per (namespace, source, category, severity, status, kind). */
export interface NamespaceCountsTable {
  agg_key: string;
  namespace: string;
  source: string;
  category: string;
  severity: string;
  status: string;
  kind: string;
  total: number;
}

/** `policy_counts`: number of results per (cluster, source, category, policy, severity, status). */
export interface PolicyCountsTable {
  agg_key: string;
  /** 1 for results of cluster reports, 0 for namespaced ones. */
  cluster: number;
  source: string;
  category: string;
  policy: string;
  severity: string;
  status: string;
  total: number;
}

/**
 * `resource_counts` (per resource, namespace and source; `category` is `""`) and
 * `resource_category_counts` (also per category): status counts.
 */
export interface ResourceCountsTable {
  agg_key: string;
  resource_id: string;
  namespace: string;
  api_version: string;
  kind: string;
  name: string;
  resource_namespace: string;
  uid: string;
  source: string;
  category: string;
  pass: number;
  fail: number;
  warn: number;
  error: number;
  skip: number;
}

/**
 * `resource_status_counts`: the number of rows of `resource_counts` (`per_category` 0) or
 * `resource_category_counts` (1) per (namespace, source, kind, category, status mask); see
 * `resource-masks.ts`.
 */
export interface ResourceStatusCountsTable {
  agg_key: string;
  per_category: number;
  namespace: string;
  source: string;
  kind: string;
  category: string;
  /** Bit i set: the rows count at least one result of the i-th status (pass, fail, warn, error, skip). */
  mask: number;
  total: number;
}

/** The whole schema. */
export interface Database {
  reports: ReportsTable;
  results: ResultsTable;
  report_labels: ReportLabelsTable;
  result_counts: ResultCountsTable;
  namespace_status_counts: NamespaceStatusCountsTable;
  namespace_counts: NamespaceCountsTable;
  policy_counts: PolicyCountsTable;
  resource_counts: ResourceCountsTable;
  resource_category_counts: ResourceCountsTable;
  resource_status_counts: ResourceStatusCountsTable;
}

/** Name prefix of kysely's migration bookkeeping tables. */
export const MIGRATION_TABLE = "reporter_migration";
