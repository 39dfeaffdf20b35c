/** A resource's result counts per source and category (`/v2/resource/:id/source-categories`). */
import type { SourceCategoryTree } from "@kyverno-ts/reporter";
import { Table } from "@mantine/core";
import { StatusCountCells, StatusHeaders } from "./CountCell.tsx";
import { Cell, Row } from "./table-cells.tsx";

/** One row per source and category. */
export function ResourceSummary({ tree }: { tree: SourceCategoryTree[] }) {
  return (
    <Table.ScrollContainer minWidth={520}>
      <Table striped verticalSpacing={6} data-testid="table-resource-summary">
        <Table.Caption className="table-caption">Results per source and category</Table.Caption>
        <Table.Thead>
          <Table.Tr>
            <Table.Th scope="col">Source</Table.Th>
            <Table.Th scope="col">Category</Table.Th>
            <StatusHeaders />
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {tree.flatMap((source) =>
            source.categories.map((c) => (
              <Row key={`${source.name}/${c.name}`}>
                <Cell>{source.name}</Cell>
                <Cell>{c.name}</Cell>
                <StatusCountCells counts={c} />
              </Row>
            )),
          )}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
