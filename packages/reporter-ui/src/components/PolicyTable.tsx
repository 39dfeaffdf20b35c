/** Policies with category, severity and counts per status, paged in the browser. */
import type { Policy } from "@kyverno-ts/reporter";
import { Table } from "@mantine/core";
import { usePageParam } from "../filters/use-filters.ts";
import { StatusCountCells, StatusHeaders } from "./CountCell.tsx";
import { paths } from "./links.ts";
import { SeverityBadge } from "./SeverityBadge.tsx";
import { TablePager } from "./TablePager.tsx";
import { Cell, CellLink, CellText, Row } from "./table-cells.tsx";

/** The table of `policies`. */
export function PolicyTable({ policies }: { policies: Policy[] }) {
  const { page, size, setPage, setSize } = usePageParam("p");
  const shown = policies.slice((page - 1) * size, page * size);
  return (
    <>
      <Table.ScrollContainer minWidth={720}>
        <Table striped highlightOnHover verticalSpacing={6} data-testid="table-policies">
          <Table.Caption className="table-caption">Policies</Table.Caption>
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">Policy</Table.Th>
              <Table.Th scope="col">Category</Table.Th>
              <Table.Th scope="col">Severity</Table.Th>
              <StatusHeaders />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {shown.map((p) => (
              <Row key={`${p.source}/${p.category}/${p.policy}`} hover>
                <Cell>
                  <CellLink to={paths.policy(p.source, p.policy)} strong>
                    {p.policy}
                  </CellLink>
                  <CellText size="xs" dimmed>
                    {p.source}
                  </CellText>
                </Cell>
                <Cell>{p.category}</Cell>
                <Cell>
                  <SeverityBadge severity={p.severity} />
                </Cell>
                <StatusCountCells counts={p.results} />
              </Row>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <TablePager
        label="policies"
        page={page}
        size={size}
        count={policies.length}
        onPage={setPage}
        onSize={setSize}
      />
    </>
  );
}
