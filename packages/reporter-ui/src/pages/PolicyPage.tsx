/**
 * One policy of one source: its details (description, category, severity, YAML: Kyverno policies
 * the reporter watches), the category, highest severity and results per status of its results,
 * status per namespace, and its results on namespaced and cluster-scoped resources.
 */
import type { Policy } from "@kyverno-ts/reporter";
import { Badge, Group, Paper, Stack, Text, Title } from "@mantine/core";
import { useParams } from "react-router";
import { useApiClient } from "../api/api-context.ts";
import { useQuery } from "../api/use-query.ts";
import { NamespaceStatusChart } from "../components/NamespaceStatusChart.tsx";
import { PageHeader } from "../components/PageHeader.tsx";
import { PolicyDetailsPanel } from "../components/PolicyDetailsPanel.tsx";
import { QueryState } from "../components/QueryState.tsx";
import { ResultsTable } from "../components/ResultsTable.tsx";
import { SeverityBadge } from "../components/SeverityBadge.tsx";
import { StatCards } from "../components/StatCards.tsx";
import { FilterBar } from "../filters/FilterBar.tsx";
import { STATUSES, toApiFilter } from "../filters/filter-state.ts";
import { useFilters } from "../filters/use-filters.ts";
import { queries } from "../queries/view-queries.ts";

/** Merges the rows of one policy listed under several categories. */
function merge(rows: Policy[]): { categories: string[]; policy: Policy | undefined } {
  const [first, ...rest] = rows;
  if (!first) return { categories: [], policy: undefined };
  const results = { ...first.results };
  for (const row of rest) for (const s of STATUSES) results[s] += row.results[s];
  return { categories: rows.map((r) => r.category), policy: { ...first, results } };
}

/** The policy page (`/policies/:source/:policy`). */
export function PolicyPage() {
  const params = useParams();
  const source = params.source ?? "";
  const name = params.policy ?? "";
  const api = useApiClient();
  const [filters] = useFilters();
  const filter = toApiFilter(filters, { sources: [source], policies: [name] });
  const query = useQuery(queries.policies(api, filter));
  return (
    <Stack gap="md">
      <PageHeader title={name} subtitle={`Policy · ${source}`} />
      <PolicyDetailsPanel source={source} policy={name} />
      <FilterBar lists={["namespaces", "kinds", "status", "severities"]} />
      <QueryState query={query} label="the policy">
        {(rows) => {
          const { categories, policy } = merge(rows);
          if (!policy) return <Text c="dimmed">No results of this policy match the filters.</Text>;
          return (
            <Stack gap="md">
              <Paper withBorder p="md" component="section" aria-label="Results summary">
                <Group gap="lg">
                  <Text size="sm">
                    <Text span fw={700}>
                      Category:{" "}
                    </Text>
                    {categories.join(", ")}
                  </Text>
                  <Group gap={6}>
                    <Text size="sm" fw={700}>
                      Severity:
                    </Text>
                    <SeverityBadge severity={policy.severity} />
                  </Group>
                  <Badge variant="outline" color="gray" autoContrast>
                    {source}
                  </Badge>
                </Group>
              </Paper>
              <StatCards counts={policy.results} />
            </Stack>
          );
        }}
      </QueryState>
      <NamespaceStatusChart filter={filter} />
      <Paper withBorder p="md" component="section" aria-labelledby="policy-results">
        <Title order={2} size="h4" id="policy-results" mb="xs">
          Results on namespaced resources
        </Title>
        <ResultsTable of={{ scope: "namespace" }} filter={filter} pageId="n" caption={`Results of ${name}`} />
      </Paper>
      <Paper withBorder p="md" component="section" aria-labelledby="policy-cluster">
        <Title order={2} size="h4" id="policy-cluster" mb="xs">
          Results on cluster-scoped resources
        </Title>
        <ResultsTable
          of={{ scope: "cluster" }}
          filter={filter}
          pageId="c"
          caption={`Cluster-scoped results of ${name}`}
        />
      </Paper>
    </Stack>
  );
}
