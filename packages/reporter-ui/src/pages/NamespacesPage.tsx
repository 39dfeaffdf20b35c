/**
 * Every namespace with its status counts (summed over sources), most failures first. The counts
 * come in one response (one row per namespace, not per result); the rows are paged in the browser.
 */
import { Paper, Stack, Table } from "@mantine/core";
import { useApiClient } from "../api/api-context.ts";
import { useQuery } from "../api/use-query.ts";
import { StatusCountCells, StatusHeaders } from "../components/CountCell.tsx";
import type { ChartRow } from "../components/charts-data.ts";
import { namespaceRows, statusCounts } from "../components/charts-data.ts";
import { paths } from "../components/links.ts";
import { PageHeader } from "../components/PageHeader.tsx";
import { QueryState } from "../components/QueryState.tsx";
import { TablePager } from "../components/TablePager.tsx";
import { Cell, CellLink, Row } from "../components/table-cells.tsx";
import { FilterBar } from "../filters/FilterBar.tsx";
import { filterQueryString, toApiFilter } from "../filters/filter-state.ts";
import { useFilters, usePageParam } from "../filters/use-filters.ts";
import { queries } from "../queries/view-queries.ts";

/** One page of the namespace rows, with the pager (`nspage`, `nssize` in the URL). */
function NamespaceTable({ rows, carry }: { rows: ChartRow[]; carry: string }) {
  const { page, size, setPage, setSize } = usePageParam("ns");
  const shown = rows.slice((page - 1) * size, page * size);
  return (
    <>
      <Table.ScrollContainer minWidth={520}>
        <Table striped highlightOnHover verticalSpacing={6} data-testid="table-namespaces">
          <Table.Caption className="table-caption">{`${rows.length} namespaces`}</Table.Caption>
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">Namespace</Table.Th>
              <StatusHeaders />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {shown.map((row) => (
              <Row key={row.label} hover>
                <Cell>
                  <CellLink to={`${paths.namespace(row.label)}${carry}`} strong>
                    {row.label}
                  </CellLink>
                </Cell>
                <StatusCountCells counts={statusCounts(row)} />
              </Row>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <TablePager
        label="namespaces"
        page={page}
        size={size}
        count={rows.length}
        onPage={setPage}
        onSize={setSize}
      />
    </>
  );
}

/** The namespaces page (`/namespaces`). */
export function NamespacesPage() {
  const api = useApiClient();
  const [filters] = useFilters();
  const filter = toApiFilter(filters);
  const query = useQuery(queries.namespaceCounts(api, filter));
  const carry = filterQueryString({ ...filters, namespaces: [] });
  return (
    <Stack gap="md">
      <PageHeader title="Namespaces" subtitle="Results per namespace, most failures first" />
      <FilterBar lists={["sources", "categories", "namespaces", "kinds", "status", "severities"]} />
      <Paper withBorder p="md">
        <QueryState query={query} label="namespaces">
          {(counts) => <NamespaceTable rows={namespaceRows(counts, counts.size)} carry={carry} />}
        </QueryState>
      </Paper>
    </Stack>
  );
}
