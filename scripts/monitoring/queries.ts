// Every PromQL query of the dashboards and the alerts, and the check that each names only metrics
// the binaries emit (their catalogs) or that Prometheus makes itself (`up`). Used by
// monitoring.test.ts and by the Prometheus end-to-end test, which queries each name.
//
// Plain Node 24 type stripping: erasable TypeScript only.
import { REPORTER_METRIC_FAMILIES } from "../../packages/reporter/src/metrics/catalog.ts";
import { METRIC_FAMILIES, type MetricFamilySpec } from "../../packages/server/src/metrics/catalog.ts";
import { ALERT_GROUPS } from "./alerts.ts";
import { dashboardQueries } from "./dashboard.ts";
import { KYVERNO_DASHBOARD } from "./kyverno-dashboard.ts";
import { POLICY_REPORTER_DASHBOARD } from "./policy-reporter-dashboard.ts";
import { familyOf, metricNames } from "./promql.ts";

/** Series Prometheus makes itself for every target. */
export const PROMETHEUS_SERIES: ReadonlySet<string> = new Set(["up"]);

const families = Object.values(METRIC_FAMILIES) as MetricFamilySpec[];
/** Names of the histogram families (their samples end in `_bucket`, `_sum`, `_count`). */
export const HISTOGRAMS: ReadonlySet<string> = new Set(
  families.filter((f) => f.type === "histogram").map((f) => f.name),
);
const emitted = new Set([
  ...families.map((f) => f.name),
  ...Object.values(REPORTER_METRIC_FAMILIES).map((f) => f.name),
]);

/** A query and where it comes from (a panel or an alert). */
export interface NamedQuery {
  where: string;
  expr: string;
}

/** Every query of the dashboards and the alerts. */
export function monitoringQueries(): NamedQuery[] {
  return [
    ...dashboardQueries(KYVERNO_DASHBOARD).map((q) => ({
      where: `kyverno-ts dashboard "${q.panel}"`,
      expr: q.expr,
    })),
    ...dashboardQueries(POLICY_REPORTER_DASHBOARD).map((q) => ({
      where: `Policy Reporter dashboard "${q.panel}"`,
      expr: q.expr,
    })),
    ...ALERT_GROUPS.flatMap((g) => g.rules.map((r) => ({ where: `alert ${r.alert}`, expr: r.expr }))),
  ];
}

/** Names in `queries` that no binary emits, as "where: name". */
export function unknownMetrics(queries: readonly NamedQuery[]): string[] {
  return queries.flatMap((q) =>
    metricNames(q.expr)
      .filter((n) => !PROMETHEUS_SERIES.has(n) && !emitted.has(familyOf(n, HISTOGRAMS)))
      .map((n) => `${q.where}: ${n}`),
  );
}
