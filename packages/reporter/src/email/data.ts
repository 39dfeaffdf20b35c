/**
 * Builds the report data from the store's query layer: status counts per source and scope for the
 * summary, failing / warning / erroring results per source and scope for the violations report. The
 * configured filters (wildcards) are resolved against the stored namespaces and sources first, so the
 * store does the filtering and the row limit applies to matching results only.
 */
import { compileIncludeExclude, isEmptySelection } from "../match.js";
import type { Status, StatusCounts } from "../model/types.js";
import type { ReportStore, ResultFilter, ResultRow, Scope } from "../store/types.js";
import type {
  EmailReportFilter,
  ScopeCounts,
  ScopeViolations,
  SourceSummary,
  SourceViolations,
  Violation,
} from "./types.js";

/** Statuses listed by the violations report. */
export const VIOLATION_STATUSES = ["fail", "warn", "error"] as const;

const emptyCounts = (): StatusCounts => ({ pass: 0, fail: 0, warn: 0, error: 0, skip: 0 });

/** The store filters of one scope; undefined when the configured filter leaves nothing to query. */
async function scopeFilters(
  store: ReportStore,
  filter: EmailReportFilter,
): Promise<{ namespaced: ResultFilter | undefined; cluster: ResultFilter | undefined }> {
  const base: ResultFilter = {};
  if (!isEmptySelection(filter.sources)) {
    const match = compileIncludeExclude(filter.sources);
    const sources = (await store.values("source", {})).filter(match);
    if (sources.length === 0) return { namespaced: undefined, cluster: undefined };
    base.sources = sources;
  }
  let namespaced: ResultFilter | undefined = { ...base, scope: "namespaced" };
  if (!isEmptySelection(filter.namespaces)) {
    const match = compileIncludeExclude(filter.namespaces);
    const namespaces = (await store.values("namespace", namespaced)).filter(match);
    namespaced = namespaces.length === 0 ? undefined : { ...namespaced, namespaces };
  }
  const cluster: ResultFilter | undefined = filter.disableClusterReports
    ? undefined
    : { ...base, scope: "cluster" };
  return { namespaced, cluster };
}

async function countsOf(
  store: ReportStore,
  filter: ResultFilter | undefined,
): Promise<Map<string, Map<string, StatusCounts>>> {
  const out = new Map<string, Map<string, StatusCounts>>();
  if (filter === undefined) return out;
  const rows = await store.countBy(["source", "namespace", "status"], filter);
  for (const row of rows) {
    const bySource = out.get(row.source) ?? new Map<string, StatusCounts>();
    out.set(row.source, bySource);
    const namespace = filter.scope === "cluster" ? "" : row.namespace;
    const counts = bySource.get(namespace) ?? emptyCounts();
    bySource.set(namespace, counts);
    counts[row.status as Status] += row.count;
  }
  return out;
}

const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The summary: counts per status for each source, per namespace and for the cluster scope. */
export async function buildSummary(store: ReportStore, filter: EmailReportFilter): Promise<SourceSummary[]> {
  const filters = await scopeFilters(store, filter);
  const namespaced = await countsOf(store, filters.namespaced);
  const cluster = await countsOf(store, filters.cluster);
  const sources = [...new Set([...namespaced.keys(), ...cluster.keys()])].sort(byName);
  return sources.map((source) => {
    const perNamespace = namespaced.get(source) ?? new Map<string, StatusCounts>();
    const namespaces: ScopeCounts[] = [...perNamespace.keys()]
      .sort(byName)
      .map((namespace) => ({ namespace, ...(perNamespace.get(namespace) ?? emptyCounts()) }));
    return { source, cluster: cluster.get(source)?.get(""), namespaces };
  });
}

function violation(row: ResultRow): Violation {
  return {
    policy: row.policy,
    rule: row.rule,
    status: row.status as Violation["status"],
    severity: row.severity,
    kind: row.resource?.kind ?? "",
    name: row.resource?.name ?? "",
    message: row.message,
  };
}

async function violationRows(
  store: ReportStore,
  filter: ResultFilter | undefined,
  limit: number,
): Promise<{ rows: ResultRow[]; total: number }> {
  if (filter === undefined) return { rows: [], total: 0 };
  const page = await store.results(
    { ...filter, status: VIOLATION_STATUSES },
    {
      page: 1,
      offset: Math.max(1, limit),
      sortBy: ["source", "namespace", "policy", "rule", "kind", "name"],
    },
  );
  return { rows: page.items.slice(0, Math.max(0, limit)), total: page.count };
}

/**
 * The violations: failing, warning and erroring results per source and scope (at most `maxRows`
 * results in all; `truncated` is the number left out), with the passing count of each scope.
 */
export async function buildViolations(
  store: ReportStore,
  filter: EmailReportFilter,
  maxRows: number,
): Promise<{ sources: SourceViolations[]; truncated: number }> {
  const filters = await scopeFilters(store, filter);
  const cluster = await violationRows(store, filters.cluster, maxRows);
  const namespaced = await violationRows(store, filters.namespaced, maxRows - cluster.rows.length);
  const passed = new Map<string, Map<string, StatusCounts>>();
  for (const scope of ["namespaced", "cluster"] as const satisfies readonly Scope[]) {
    const f = filters[scope];
    if (f === undefined) continue;
    for (const [source, counts] of await countsOf(store, { ...f, status: ["pass"] })) {
      const merged = passed.get(source) ?? new Map<string, StatusCounts>();
      for (const [ns, c] of counts) merged.set(ns, c);
      passed.set(source, merged);
    }
  }
  const grouped = new Map<string, Map<string, ScopeViolations>>();
  for (const [rows, isCluster] of [
    [cluster.rows, true],
    [namespaced.rows, false],
  ] as const) {
    for (const row of rows) {
      const namespace = isCluster ? "" : row.namespace;
      const bySource = grouped.get(row.source) ?? new Map<string, ScopeViolations>();
      grouped.set(row.source, bySource);
      const scope = bySource.get(namespace) ?? {
        namespace,
        passed: passed.get(row.source)?.get(namespace)?.pass ?? 0,
        items: [],
      };
      bySource.set(namespace, scope);
      scope.items.push(violation(row));
    }
  }
  const sources = [...grouped.keys()].sort(byName).map((source) => {
    const scopes = grouped.get(source) ?? new Map<string, ScopeViolations>();
    return {
      source,
      cluster: scopes.get(""),
      namespaces: [...scopes.values()]
        .filter((s) => s.namespace !== "")
        .sort((a, b) => byName(a.namespace, b.namespace)),
    };
  });
  const truncated = cluster.total + namespaced.total - cluster.rows.length - namespaced.rows.length;
  return { sources, truncated };
}
