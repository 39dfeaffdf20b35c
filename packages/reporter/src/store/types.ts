/**
 * The store's public shapes: options to open one, the filters and pagination its queries take,
 * the rows they return, and the {@link ReportStore} interface the API, ingest and bench use.
 */
import type { Logger } from "../logger.js";
import type { Report, ResourceRef, Severity, Status, StatusCounts } from "../model/types.js";

/** The SQL dialects the store speaks (`mariadb` opens as `mysql`). */
export type StoreDialect = "sqlite" | "postgres" | "mysql";

/** Options of `createStore`: one variant per database. */
export type StoreOptions =
  | {
      type: "sqlite";
      /** A file path, or `:memory:` (the default). */
      path?: string;
      /** Caps the database size; writes beyond it fail with `STORE_DISK_FULL` (as a full disk would). */
      maxSizeBytes?: number;
      logger?: Logger;
    }
  | {
      type: "postgres";
      /** `postgres://user:password@host:port/database`. */
      connectionString: string;
      /** Schema to create the tables in (created if missing); default `public`. */
      schema?: string;
      /** Pool size (`database.maxOpenConnections`); default 10. */
      maxConnections?: number;
      logger?: Logger;
    }
  | {
      type: "mysql" | "mariadb";
      /** `mysql://user:password@host:port/database`. */
      connectionString: string;
      maxConnections?: number;
      logger?: Logger;
    };

/** A dimension results can be grouped or listed by. */
export type Dimension =
  | "namespace"
  | "source"
  | "category"
  | "policy"
  | "rule"
  | "severity"
  | "status"
  | "kind";

/** Which results a query covers by the scope of their report. */
export type Scope = "namespaced" | "cluster";

/**
 * The common filters of the API (`namespaces[]`, `kinds[]`, …). Lists are OR'ed within a filter
 * and AND'ed across filters; empty or absent lists do not filter.
 */
export interface ResultFilter {
  scope?: Scope;
  namespaces?: readonly string[];
  kinds?: readonly string[];
  /** Resource names. */
  resources?: readonly string[];
  sources?: readonly string[];
  categories?: readonly string[];
  /** Severities; `unknown` selects results without one. */
  severities?: readonly (Severity | "unknown")[];
  policies?: readonly string[];
  rules?: readonly string[];
  status?: readonly Status[];
  /** Report labels as `key:value`. */
  labels?: readonly string[];
  /** Case-insensitive substring of the resource name or kind, or of the policy. */
  search?: string;
  /** Only results about this resource ID. */
  resourceId?: string;
  /** Only results that name no resource. */
  withoutResource?: boolean;
}

/** Page selection as upstream: `page` is 1-based, `offset` is the page size. */
export interface Pagination {
  page: number;
  offset: number;
  sortBy?: readonly string[];
  direction?: "asc" | "desc";
}

/** A page of items and the total number of matches. */
export interface Page<T> {
  items: T[];
  count: number;
}

/** One group of {@link ReportStore.countBy}: the grouped dimensions and the number of results. */
export type CountRow<D extends Dimension> = { [K in D]: string } & { count: number };

/** One policy of {@link ReportStore.policyCounts}: its results per status and its highest severity. */
export interface PolicyCountRow {
  source: string;
  category: string;
  policy: string;
  /** The highest known severity among its results; undefined when none has one. */
  severity: Severity | undefined;
  results: StatusCounts;
}

/** One stored result, flattened for lists. */
export interface ResultRow {
  id: string;
  reportId: string;
  namespace: string;
  source: string;
  policy: string;
  rule: string;
  status: Status;
  severity: Severity | "";
  category: string;
  message: string;
  scored: boolean;
  timestamp: number;
  properties: Record<string, string>;
  resource: ResourceRef | undefined;
}

/** Result counts of one resource for one source (and category, when grouped by it). */
export interface ResourceCountRow extends StatusCounts {
  resource: ResourceRef;
  namespace: string;
  source: string;
  category: string;
}

/** A stored report summary (v1 `policy-reports`). */
export interface ReportRow extends StatusCounts {
  id: string;
  kind: string;
  name: string;
  namespace: string;
  source: string;
  labels: Record<string, string>;
}

/** Filter of report lists. */
export interface ReportFilter {
  scope: Scope;
  namespaces?: readonly string[];
  sources?: readonly string[];
  labels?: readonly string[];
  search?: string;
}

/** One write: store a report with all its results, or remove a report by ID. */
export type WriteOp = { type: "upsert"; report: Report } | { type: "delete"; reportId: string };

/** What a {@link ReportStore.write} changed. */
export interface WriteSummary {
  upserted: number;
  /** Upserts skipped because the stored report was identical. */
  unchanged: number;
  deleted: number;
  resultsWritten: number;
}

/**
 * One query layer over SQLite, PostgreSQL and MySQL/MariaDB. Writes are transactional per call;
 * failures throw a `ReporterError` (`STORE_DISK_FULL`, `STORE_WRITE_FAILED`, `STORE_READ_FAILED`).
 */
export interface ReportStore {
  readonly dialect: StoreDialect;
  /** Applies the operations in one transaction (retried on deadlock); the last op per report wins. */
  write(ops: readonly WriteOp[]): Promise<WriteSummary>;
  /** Removes every report (the store is rebuilt from the cluster at start-up). */
  clear(): Promise<void>;
  /** Stored report IDs. */
  reportIds(): Promise<string[]>;
  /** Result counts grouped by the given dimensions, ordered by them; served from pre-aggregated counts when the filter allows. */
  countBy<D extends Dimension>(dimensions: readonly D[], filter: ResultFilter): Promise<CountRow<D>[]>;
  /**
   * Result counts per policy (source, category, policy) with the highest severity, unordered; grouped
   * in the database from the pre-aggregated counts when the filter allows.
   */
  policyCounts(filter: ResultFilter): Promise<PolicyCountRow[]>;
  /** Distinct values of one dimension among the matching results, sorted. */
  values(dimension: Dimension, filter: ResultFilter): Promise<string[]>;
  /** Distinct values of one result property among the matching results, sorted. */
  propertyValues(property: string, filter: ResultFilter): Promise<string[]>;
  /** Matching results, paginated (all of them without pagination). */
  results(filter: ResultFilter, pagination?: Pagination): Promise<Page<ResultRow>>;
  /** Per-resource result counts per source (and category with `byCategory`), paginated. */
  resourceCounts(
    filter: ResultFilter,
    options: { byCategory: boolean; pagination?: Pagination | undefined },
  ): Promise<Page<ResourceCountRow>>;
  /** Distinct resources among the matching results. */
  resources(filter: ResultFilter): Promise<ResourceRef[]>;
  /** One resource by ID. */
  resource(id: string): Promise<ResourceRef | undefined>;
  /** Report summaries, paginated. */
  reports(filter: ReportFilter, pagination?: Pagination): Promise<Page<ReportRow>>;
  /** Bytes used by the store's tables (and indexes). */
  size(): Promise<number>;
  /** Row count per table (results, reports and each pre-aggregated table), for diagnostics. */
  tableRows(): Promise<Record<string, number>>;
  /** Resolves when the database answers. */
  ping(): Promise<void>;
  /**
   * Refreshes the planner statistics (PostgreSQL `VACUUM (ANALYZE)`, so counts can be answered from
   * covering indexes alone; MySQL `ANALYZE TABLE`; SQLite `ANALYZE`). The statistics alone are also
   * refreshed automatically once the rows written since the last refresh exceed the rows stored then;
   * call it after the initial sync so the first dashboard queries get good plans.
   */
  optimize(): Promise<void>;
  /** The applied schema version (number of migrations run). */
  schemaVersion(): Promise<number>;
  /** Closes connections; the store is unusable afterwards. */
  close(): Promise<void>;
}

/** Sort keys accepted by {@link ReportStore.results}. */
export const RESULT_SORT_KEYS = [
  "namespace",
  "kind",
  "name",
  "resource",
  "policy",
  "rule",
  "status",
  "severity",
  "source",
  "category",
  "timestamp",
  "message",
] as const;

/** Sort keys accepted by {@link ReportStore.resourceCounts} and {@link ReportStore.reports}. */
export const RESOURCE_SORT_KEYS = ["namespace", "kind", "name", "resource", "source", "category"] as const;
