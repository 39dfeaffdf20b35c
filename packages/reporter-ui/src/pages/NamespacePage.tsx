/** One namespace: totals, results and failures by severity per source, its resources and its results. */
import { Paper, Stack, Title } from "@mantine/core";
import { useParams } from "react-router";
import { useApiClient } from "../api/api-context.ts";
import { useQuery } from "../api/use-query.ts";
import { FindingsCharts } from "../components/FindingsCharts.tsx";
import { PageHeader } from "../components/PageHeader.tsx";
import { QueryState } from "../components/QueryState.tsx";
import { ResourceResultsTable } from "../components/ResourceResultsTable.tsx";
import { ResultsTable } from "../components/ResultsTable.tsx";
import { StatCards } from "../components/StatCards.tsx";
import { FilterBar } from "../filters/FilterBar.tsx";
import { toApiFilter } from "../filters/filter-state.ts";
import { useFilters } from "../filters/use-filters.ts";
import { queries } from "../queries/view-queries.ts";

/** The namespace page (`/namespaces/:namespace`). */
export function NamespacePage() {
  const namespace = useParams().namespace ?? "";
  const api = useApiClient();
  const [filters] = useFilters();
  const filter = toApiFilter(filters, { namespaces: [namespace] });
  const findings = useQuery(queries.findings(api, filter));
  return (
    <Stack gap="md">
      <PageHeader title={namespace} subtitle="Namespace" />
      <FilterBar lists={["sources", "categories", "kinds", "status", "severities"]} />
      <QueryState query={findings} label="totals">
        {(data) => <StatCards counts={data.perResult} />}
      </QueryState>
      <FindingsCharts filter={filter} />
      <Paper withBorder p="md" component="section" aria-labelledby="ns-resources">
        <Title order={2} size="h4" id="ns-resources" mb="xs">
          Resources
        </Title>
        <ResourceResultsTable
          scope="namespace"
          filter={filter}
          pageId="r"
          caption={`Resources in ${namespace}`}
        />
      </Paper>
      <Paper withBorder p="md" component="section" aria-labelledby="ns-results">
        <Title order={2} size="h4" id="ns-results" mb="xs">
          Results
        </Title>
        <ResultsTable
          of={{ scope: "namespace" }}
          filter={filter}
          pageId="n"
          caption={`Results in ${namespace}`}
        />
      </Paper>
    </Stack>
  );
}
