/**
 * The dashboard: totals per status, results and failures-by-severity per source, status per
 * namespace, the cluster-scoped results and the namespaced resources, all under the filters.
 */
import { Paper, Stack, Title } from "@mantine/core";
import { useApiClient } from "../api/api-context.ts";
import { useQuery } from "../api/use-query.ts";
import { FindingsCharts } from "../components/FindingsCharts.tsx";
import { NamespaceStatusChart } from "../components/NamespaceStatusChart.tsx";
import { PageHeader } from "../components/PageHeader.tsx";
import { QueryState } from "../components/QueryState.tsx";
import { ResourceResultsTable } from "../components/ResourceResultsTable.tsx";
import { ResultsTable } from "../components/ResultsTable.tsx";
import { StatCards } from "../components/StatCards.tsx";
import { FilterBar } from "../filters/FilterBar.tsx";
import { toApiFilter } from "../filters/filter-state.ts";
import { useFilters } from "../filters/use-filters.ts";
import { queries } from "../queries/view-queries.ts";

/** The dashboard page. */
export function DashboardPage() {
  const api = useApiClient();
  const [filters] = useFilters();
  const filter = toApiFilter(filters);
  const findings = useQuery(queries.findings(api, filter));
  return (
    <Stack gap="md">
      <PageHeader title="Dashboard" subtitle="Policy results across the cluster" />
      <FilterBar />
      <QueryState query={findings} label="totals">
        {(data) => <StatCards counts={data.perResult} label="Results per status" />}
      </QueryState>
      <FindingsCharts filter={filter} />
      <NamespaceStatusChart filter={filter} />
      <Paper withBorder p="md" component="section" aria-labelledby="cluster-results">
        <Title order={2} size="h4" id="cluster-results" mb="xs">
          Cluster-scoped results
        </Title>
        <ResultsTable
          of={{ scope: "cluster" }}
          filter={filter}
          pageId="c"
          caption="Results of cluster-scoped resources"
        />
      </Paper>
      <Paper withBorder p="md" component="section" aria-labelledby="namespaced-resources">
        <Title order={2} size="h4" id="namespaced-resources" mb="xs">
          Namespaced resources
        </Title>
        <ResourceResultsTable
          scope="namespace"
          filter={filter}
          pageId="r"
          caption="Resources and their results per source"
        />
      </Paper>
    </Stack>
  );
}
