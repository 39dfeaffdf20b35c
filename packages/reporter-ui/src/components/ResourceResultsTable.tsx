/**
 * Resources with their result counts per source (server-side paginated), each linking to the
 * resource page. Used by the dashboard, the source and the namespace pages.
 */
import type { ApiFilterQuery } from "@kyverno-ts/reporter";
import { Anchor, Table, Text } from "@mantine/core";
import { Link } from "react-router";
import { useApiClient } from "../api/api-context.ts";
import type { ApiScope } from "../api/client.ts";
import { useQuery } from "../api/use-query.ts";
import { STATUSES } from "../filters/filter-state.ts";
import { usePageParam } from "../filters/use-filters.ts";
import { queries } from "../queries/view-queries.ts";
import { CountCell } from "./CountCell.tsx";
import { paths } from "./links.ts";
import { NoResults } from "./NoResults.tsx";
import { QueryState } from "./QueryState.tsx";
import { TablePager } from "./TablePager.tsx";

/** Props of {@link ResourceResultsTable}. */
export interface ResourceResultsTableProps {
  scope: ApiScope;
  filter: ApiFilterQuery;
  /** Prefix of this table's page parameters in the URL (`r` → `rpage`, `rsize`). */
  pageId: string;
  caption: string;
}

/** The paginated table. */
export function ResourceResultsTable({ scope, filter, pageId, caption }: ResourceResultsTableProps) {
  const api = useApiClient();
  const { page, size, setPage, setSize } = usePageParam(pageId);
  const query = useQuery(queries.resourceResults(api, scope, filter, { page, size }));
  return (
    <QueryState query={query} label={caption}>
      {(data) =>
        data.count === 0 ? (
          <NoResults what="resources" testId={`table-${pageId}-empty`} />
        ) : (
          <>
            <Table.ScrollContainer minWidth={640}>
              <Table striped highlightOnHover verticalSpacing={6} data-testid={`table-${pageId}`}>
                <Table.Caption className="table-caption">{caption}</Table.Caption>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th scope="col">Resource</Table.Th>
                    {scope === "namespace" && <Table.Th scope="col">Namespace</Table.Th>}
                    <Table.Th scope="col">Source</Table.Th>
                    {STATUSES.map((s) => (
                      <Table.Th key={s} scope="col" ta="right" tt="capitalize">
                        {s}
                      </Table.Th>
                    ))}
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {data.items.map((r) => (
                    <Table.Tr key={`${r.id}/${r.source}`}>
                      <Table.Td>
                        <Anchor component={Link} to={paths.resource(r.id)} size="sm" fw={600}>
                          {r.name}
                        </Anchor>
                        <Text span size="xs" c="dimmed" ml={6}>
                          {r.kind}
                        </Text>
                      </Table.Td>
                      {scope === "namespace" && <Table.Td>{r.namespace}</Table.Td>}
                      <Table.Td>{r.source}</Table.Td>
                      {STATUSES.map((s) => (
                        <CountCell key={s} status={s} count={r[s]} />
                      ))}
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
            <TablePager
              label="resources"
              page={page}
              size={size}
              count={data.count}
              onPage={setPage}
              onSize={setSize}
            />
          </>
        )
      }
    </QueryState>
  );
}
