/**
 * Resources with their result counts per source (server-side paginated), each linking to the
 * resource page. Used by the dashboard, the source and the namespace pages.
 */
import type { ApiFilterQuery } from "@kyverno-ts/reporter";
import { Table } from "@mantine/core";
import { useApiClient } from "../api/api-context.ts";
import type { ApiScope } from "../api/client.ts";
import { useQuery } from "../api/use-query.ts";
import { usePageParam } from "../filters/use-filters.ts";
import { queries } from "../queries/view-queries.ts";
import { StatusCountCells, StatusHeaders } from "./CountCell.tsx";
import { paths } from "./links.ts";
import { NoResults } from "./NoResults.tsx";
import { QueryState } from "./QueryState.tsx";
import { TablePager } from "./TablePager.tsx";
import { Cell, CellLink, CellText, Row } from "./table-cells.tsx";

/** Props of {@link ResourceResultsTable}. */
export interface ResourceResultsTableProps {
  scope: ApiScope;
  filter: ApiFilterQuery;
  /** Prefix of this table's page parameters in the URL (`r` → `rpage`, `rsize`). */
  pageId: string;
  caption: string;
}

/** Mantine's `ml={6}`: the gap between a resource's name and its kind. */
const KIND_GAP = { marginLeft: "calc(0.375rem * var(--mantine-scale))" };

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
                    <StatusHeaders />
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {data.items.map((r) => (
                    <Row key={`${r.id}/${r.source}`} hover>
                      <Cell>
                        <CellLink to={paths.resource(r.id)} strong>
                          {r.name}
                        </CellLink>
                        <CellText span size="xs" dimmed style={KIND_GAP}>
                          {r.kind}
                        </CellText>
                      </Cell>
                      {scope === "namespace" && <Cell>{r.namespace}</Cell>}
                      <Cell>{r.source}</Cell>
                      <StatusCountCells counts={r} />
                    </Row>
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
