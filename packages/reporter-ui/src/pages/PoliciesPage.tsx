/**
 * The policies with their severity, category and results per status. `/v2/policies` returns
 * one row per policy (not per result), so this list is paged in the browser.
 */
import { Paper, Stack } from "@mantine/core";
import { useApiClient } from "../api/api-context.ts";
import { useQuery } from "../api/use-query.ts";
import { PageHeader } from "../components/PageHeader.tsx";
import { PolicyTable } from "../components/PolicyTable.tsx";
import { QueryState } from "../components/QueryState.tsx";
import { FilterBar } from "../filters/FilterBar.tsx";
import { toApiFilter } from "../filters/filter-state.ts";
import { useFilters } from "../filters/use-filters.ts";
import { queries } from "../queries/view-queries.ts";

/** The policies page (`/policies`). */
export function PoliciesPage() {
  const api = useApiClient();
  const [filters] = useFilters();
  const filter = toApiFilter(filters);
  const query = useQuery(queries.policies(api, filter));
  return (
    <Stack gap="md">
      <PageHeader title="Policies" subtitle="Every policy with results, and how they turned out" />
      <FilterBar />
      <Paper withBorder p="md">
        <QueryState query={query} label="policies">
          {(policies) => <PolicyTable policies={policies} />}
        </QueryState>
      </Paper>
    </Stack>
  );
}
