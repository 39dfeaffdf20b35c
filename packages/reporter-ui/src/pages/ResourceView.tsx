/** One resource's details, counts per source and category, results per policy and exception. */
import type { Resource } from "@kyverno-ts/reporter";
import { Anchor, Badge, Group, Paper, Stack, Text, Title } from "@mantine/core";
import { Link } from "react-router";
import { useApiClient } from "../api/api-context.ts";
import { useQuery } from "../api/use-query.ts";
import { paths } from "../components/links.ts";
import { PageHeader } from "../components/PageHeader.tsx";
import { QueryState } from "../components/QueryState.tsx";
import { ResourceSummary } from "../components/ResourceSummary.tsx";
import { ResultsTable } from "../components/ResultsTable.tsx";
import { ExceptionPanel } from "../exception/ExceptionPanel.tsx";
import { FilterBar } from "../filters/FilterBar.tsx";
import { toApiFilter } from "../filters/filter-state.ts";
import { useFilters } from "../filters/use-filters.ts";
import { queries } from "../queries/view-queries.ts";

/** The view of a loaded resource. */
export function ResourceView({ resource }: { resource: Resource }) {
  const api = useApiClient();
  const [filters] = useFilters();
  const filter = toApiFilter(filters);
  const tree = useQuery(queries.resourceTree(api, resource.id, filter));
  return (
    <Stack gap="md">
      <PageHeader
        title={resource.name}
        subtitle={
          <Group gap="xs">
            <Badge variant="outline" color="gray" autoContrast>
              {resource.kind}
            </Badge>
            {resource.namespace ? (
              <Text span size="sm">
                in{" "}
                <Anchor component={Link} to={paths.namespace(resource.namespace)}>
                  {resource.namespace}
                </Anchor>
              </Text>
            ) : (
              <Text span size="sm">
                cluster-scoped
              </Text>
            )}
            <Text span size="xs" c="dimmed">
              {resource.apiVersion} · uid {resource.uid || "—"}
            </Text>
          </Group>
        }
      />
      <FilterBar lists={["sources", "categories", "status", "severities"]} />
      <Paper withBorder p="md">
        <QueryState query={tree} label="counts">
          {(data) => <ResourceSummary tree={data} />}
        </QueryState>
      </Paper>
      <Paper withBorder p="md" component="section" aria-labelledby="resource-results">
        <Title order={2} size="h4" id="resource-results" mb="xs">
          Results per policy
        </Title>
        <ResultsTable
          of={{ resourceId: resource.id }}
          filter={filter}
          pageId="p"
          caption={`Results of ${resource.kind} ${resource.name}`}
        />
      </Paper>
      <ExceptionPanel resource={resource} />
    </Stack>
  );
}
