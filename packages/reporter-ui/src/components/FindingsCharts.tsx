/**
 * The dashboard's two charts per source: results by status, and the failing results by severity
 * (or, when a status filter is set, the filtered results).
 */
import type { ApiFilterQuery } from "@kyverno-ts/reporter";
import { SimpleGrid } from "@mantine/core";
import { useNavigate } from "react-router";
import { useApiClient } from "../api/api-context.ts";
import { useQuery } from "../api/use-query.ts";
import { queries } from "../queries/view-queries.ts";
import { usePalette } from "../theme/palette-context.ts";
import { ChartCard } from "./ChartCard.tsx";
import { findingsRows, SEVERITY_KEYS, STATUS_KEYS, summarize } from "./charts-data.ts";
import { LazyStackedBars as StackedBars } from "./lazy-charts.tsx";
import { paths } from "./links.ts";
import { QueryState } from "./QueryState.tsx";

/** Both charts for `filter`. */
export function FindingsCharts({ filter }: { filter: ApiFilterQuery }) {
  const api = useApiClient();
  const { palette } = usePalette();
  const navigate = useNavigate();
  const findings = useQuery(queries.findings(api, filter));
  const severity = useQuery(queries.severityFindings(api, filter));
  const openSource = (source: string) => navigate(paths.source(source));
  return (
    <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md">
      <QueryState query={findings} label="findings">
        {(data) => {
          const rows = findingsRows(data, STATUS_KEYS);
          return (
            <ChartCard title="Results per source" summary={summarize(rows, STATUS_KEYS)}>
              <StackedBars rows={rows} keys={STATUS_KEYS} colors={palette.status} onSelect={openSource} />
            </ChartCard>
          );
        }}
      </QueryState>
      <QueryState query={severity} label="severity findings">
        {(data) => {
          const rows = findingsRows(data, SEVERITY_KEYS);
          const title = filter.status?.length ? "Results by severity" : "Failures by severity";
          return (
            <ChartCard title={title} summary={summarize(rows, SEVERITY_KEYS)}>
              <StackedBars rows={rows} keys={SEVERITY_KEYS} colors={palette.severity} onSelect={openSource} />
            </ChartCard>
          );
        }}
      </QueryState>
    </SimpleGrid>
  );
}
