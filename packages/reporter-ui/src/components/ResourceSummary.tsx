/** A resource's result counts per source and category (`/v2/resource/:id/source-categories`). */
import type { SourceCategoryTree } from "@kyverno-ts/reporter";
import { Table } from "@mantine/core";
import { STATUSES } from "../filters/filter-state.ts";
import { CountCell } from "./CountCell.tsx";
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
            {STATUSES.map((s) => (
              <Table.Th key={s} scope="col" ta="right" tt="capitalize">
                {s}
              </Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {tree.flatMap((source) =>
            source.categories.map((c) => (
              <Row key={`${source.name}/${c.name}`}>
                <Cell>{source.name}</Cell>
                <Cell>{c.name}</Cell>
                {STATUSES.map((s) => (
                  <CountCell key={s} status={s} count={c[s]} />
                ))}
              </Row>
            )),
          )}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
