/**
 * Which reports ingest keeps: `reportFilter` (namespaces, cluster reports) and `sourceFilters`
 * (per source: namespaces, scope kinds, cluster reports, `uncontrolledOnly`), compiled once.
 */
import type { Logger } from "../logger.js";
import { compileIncludeExclude, type IncludeExclude, isEmptySelection } from "../match.js";
import { isClusterReport, type Report, type ResourceRef } from "../model/types.js";

/** `reportFilter` of the configuration. */
export interface ReportFilterConfig {
  namespaces?: IncludeExclude;
  disableClusterReports?: boolean;
}

/** One entry of `sourceFilters`. */
export interface SourceFilterConfig {
  /** The reports the entry applies to, by source (wildcards); all reports when absent. */
  selector?: { sources?: readonly string[] };
  /** Drop reports about Pods, Jobs and ReplicaSets that have a controller owner. */
  uncontrolledOnly?: boolean;
  disableClusterReports?: boolean;
  /** By the kind of the report's scope. */
  kinds?: IncludeExclude;
  namespaces?: IncludeExclude;
  sources?: IncludeExclude;
}

/**
 * Asks the cluster whether an object has a controller owner reference. Provided by the informer
 * glue; without it `uncontrolledOnly` keeps every report.
 */
export type ControllerLookup = (scope: ResourceRef) => Promise<boolean>;

/** Filters of {@link createIngest}. */
export interface IngestFilters {
  reportFilter?: ReportFilterConfig;
  sourceFilters?: readonly SourceFilterConfig[];
  isControlled?: ControllerLookup;
}

/** The kinds `uncontrolledOnly` applies to (their controllers' reports cover them). */
export const CONTROLLED_KINDS: ReadonlySet<string> = new Set(["Pod", "Job", "ReplicaSet"]);

/** A compiled filter: resolves to the reason a report is dropped, or `undefined` to keep it. */
export type CompiledIngestFilter = (report: Report) => Promise<string | undefined>;

/** Compiles the filters. Logs once when `uncontrolledOnly` is configured without a lookup. */
export function compileIngestFilters(filters: IngestFilters = {}, logger?: Logger): CompiledIngestFilter {
  const reportNamespaces = compileIncludeExclude(filters.reportFilter?.namespaces);
  const disableCluster = filters.reportFilter?.disableClusterReports === true;
  const sourceFilters = (filters.sourceFilters ?? []).map((f) => ({
    applies: compileIncludeExclude(f.selector?.sources?.length ? { include: f.selector.sources } : undefined),
    namespaces: compileIncludeExclude(f.namespaces),
    hasNamespaces: !isEmptySelection(f.namespaces),
    kinds: compileIncludeExclude(f.kinds),
    hasKinds: !isEmptySelection(f.kinds),
    sources: compileIncludeExclude(f.sources),
    disableCluster: f.disableClusterReports === true,
    uncontrolledOnly: f.uncontrolledOnly === true,
  }));
  const lookup = filters.isControlled;
  if (!lookup && sourceFilters.some((f) => f.uncontrolledOnly)) {
    logger?.warn(
      {},
      "sourceFilters.uncontrolledOnly is set but no controller lookup is available; keeping all reports",
    );
  }
  return async (report) => {
    const cluster = isClusterReport(report);
    if (cluster && disableCluster) return "reportFilter.disableClusterReports";
    if (!cluster && !reportNamespaces(report.namespace)) return "reportFilter.namespaces";
    for (const [i, f] of sourceFilters.entries()) {
      if (!f.applies(report.source)) continue;
      const at = `sourceFilters[${i}]`;
      if (!f.sources(report.source)) return `${at}.sources`;
      if (cluster && f.disableCluster) return `${at}.disableClusterReports`;
      if (!cluster && f.hasNamespaces && !f.namespaces(report.namespace)) return `${at}.namespaces`;
      if (f.hasKinds && report.scope && !f.kinds(report.scope.kind)) return `${at}.kinds`;
      if (f.uncontrolledOnly && lookup && report.scope && CONTROLLED_KINDS.has(report.scope.kind)) {
        if (await lookup(report.scope)) return `${at}.uncontrolledOnly`;
      }
    }
    return undefined;
  };
}
