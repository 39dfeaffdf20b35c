/**
 * One source (kyverno, trivy, …) and its categories: totals, severity of failures, categories,
 * status per namespace, its namespaced resources and its cluster-scoped results.
 */
import { Paper, SimpleGrid, Stack, Title } from "@mantine/core";
import { useParams } from "react-router";
import { useApiClient } from "../api/api-context.ts";
import { useQuery } from "../api/use-query.ts";
import { CategoryTable } from "../components/CategoryTable.tsx";
import { ChartCard } from "../components/ChartCard.tsx";
import { SEVERITY_KEYS, summarize } from "../components/charts-data.ts";
import { LazyCountsDonut as CountsDonut } from "../components/lazy-charts.tsx";
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
import { usePalette } from "../theme/palette-context.ts";

/** The source page (`/sources/:source`). */
export function SourcePage() {
  const source = useParams().source ?? "";
  const api = useApiClient();
  const { palette } = usePalette();
  const [filters, setFilters] = useFilters();
  const filter = toApiFilter(filters, { sources: [source] });
  const status = useQuery(queries.sourceStatus(api, source, filter));
  const severity = useQuery(queries.sourceSeverity(api, source, filter));
  const tree = useQuery(queries.sourceCategories(api, filter));
  return (
    <Stack gap="md">
      <PageHeader title={source} subtitle="Results of this source, by category" />
      <FilterBar lists={["categories", "namespaces", "kinds", "status", "severities"]} />
      <QueryState query={status} label="totals">
        {(counts) => <StatCards counts={counts} />}
      </QueryState>
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md">
        <QueryState query={severity} label="severities">
          {(counts) => (
            <ChartCard
              title={filter.status?.length ? "By severity" : "Failures by severity"}
              summary={summarize([{ label: source, ...counts }], SEVERITY_KEYS)}
            >
              <CountsDonut counts={counts} keys={SEVERITY_KEYS} colors={palette.severity} />
            </ChartCard>
          )}
        </QueryState>
        <Paper withBorder p="md">
          <QueryState query={tree} label="categories">
            {(data) => (
              <CategoryTable
                categories={data.find((s) => s.name === source)?.categories ?? []}
                onSelect={(category) => setFilters({ categories: [category] })}
              />
            )}
          </QueryState>
        </Paper>
      </SimpleGrid>
      <NamespaceStatusChart filter={filter} />
      <Paper withBorder p="md" component="section" aria-labelledby="source-resources">
        <Title order={2} size="h4" id="source-resources" mb="xs">
          Namespaced resources
        </Title>
        <ResourceResultsTable
          scope="namespace"
          filter={filter}
          pageId="r"
          caption={`Resources with ${source} results`}
        />
      </Paper>
      <Paper withBorder p="md" component="section" aria-labelledby="source-cluster">
        <Title order={2} size="h4" id="source-cluster" mb="xs">
          Cluster-scoped results
        </Title>
        <ResultsTable
          of={{ scope: "cluster" }}
          filter={filter}
          pageId="c"
          caption={`Cluster-scoped ${source} results`}
        />
      </Paper>
    </Stack>
  );
}
