/**
 * Policy results (server-side paginated): resource, policy and rule, status, severity and the
 * message. Reads namespace- or cluster-scoped results, or one resource's results.
 */
import type { ApiFilterQuery } from "@kyverno-ts/reporter";
import { Table } from "@mantine/core";
import { useApiClient } from "../api/api-context.ts";
import { useQuery } from "../api/use-query.ts";
import { usePageParam } from "../filters/use-filters.ts";
import { queries, type ResultsOf } from "../queries/view-queries.ts";
import { paths } from "./links.ts";
import { NoResults } from "./NoResults.tsx";
import { QueryState } from "./QueryState.tsx";
import { SeverityBadge } from "./SeverityBadge.tsx";
import { StatusBadge } from "./StatusBadge.tsx";
import { TablePager } from "./TablePager.tsx";
import { Cell, CellLink, CellText, Row } from "./table-cells.tsx";

/** Props of {@link ResultsTable}. */
export interface ResultsTableProps {
  /** A scope, or one resource's results (then the resource columns are left out). */
  of: ResultsOf;
  filter: ApiFilterQuery;
  pageId: string;
  caption: string;
}

const time = (seconds: number) =>
  seconds ? new Date(seconds * 1000).toISOString().replace(".000Z", "Z") : "";

/** The paginated results table. */
export function ResultsTable({ of, filter, pageId, caption }: ResultsTableProps) {
  const api = useApiClient();
  const { page, size, setPage, setSize } = usePageParam(pageId);
  const query = useQuery(queries.results(api, of, filter, { page, size }));
  const withResource = "scope" in of;
  return (
    <QueryState query={query} label={caption}>
      {(data) =>
        data.count === 0 ? (
          <NoResults what="results" testId={`table-${pageId}-empty`} />
        ) : (
          <>
            <Table.ScrollContainer minWidth={760}>
              <Table striped verticalSpacing={6} data-testid={`table-${pageId}`}>
                <Table.Caption className="table-caption">{caption}</Table.Caption>
                <Table.Thead>
                  <Table.Tr>
                    {withResource && <Table.Th scope="col">Resource</Table.Th>}
                    <Table.Th scope="col">Policy / rule</Table.Th>
                    <Table.Th scope="col">Status</Table.Th>
                    <Table.Th scope="col">Severity</Table.Th>
                    <Table.Th scope="col">Message</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {data.items.map((r) => (
                    <Row key={r.id}>
                      {withResource && (
                        <Cell>
                          {r.resourceId ? (
                            <CellLink to={paths.resource(r.resourceId)} strong>
                              {r.name}
                            </CellLink>
                          ) : (
                            <CellText span>{r.name || "—"}</CellText>
                          )}
                          <CellText size="xs" dimmed>
                            {[r.kind, r.namespace].filter(Boolean).join(" · ")}
                          </CellText>
                        </Cell>
                      )}
                      <Cell>
                        <CellLink to={paths.policy(r.source, r.policy)}>{r.policy}</CellLink>
                        <CellText size="xs" dimmed>
                          {r.rule} · {r.source}
                        </CellText>
                      </Cell>
                      <Cell>
                        <StatusBadge status={r.status} />
                      </Cell>
                      <Cell>
                        <SeverityBadge severity={r.severity} />
                      </Cell>
                      <Cell maxWidth={520}>
                        <CellText style={{ overflowWrap: "anywhere" }}>{r.message}</CellText>
                        <CellText size="xs" dimmed>
                          {time(r.timestamp)}
                        </CellText>
                      </Cell>
                    </Row>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
            <TablePager
              label="results"
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
