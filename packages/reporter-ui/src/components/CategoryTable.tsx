/** The categories of one source with their status counts; a category name sets the category filter. */
import type { Category } from "@kyverno-ts/reporter";
import { Anchor, Table } from "@mantine/core";
import { StatusCountCells, StatusHeaders } from "./CountCell.tsx";

/** The table; `onSelect` filters by one category. */
export function CategoryTable({
  categories,
  onSelect,
}: {
  categories: Category[];
  onSelect: (name: string) => void;
}) {
  return (
    <Table.ScrollContainer minWidth={480}>
      <Table striped highlightOnHover verticalSpacing={6}>
        <Table.Caption className="table-caption">Categories</Table.Caption>
        <Table.Thead>
          <Table.Tr>
            <Table.Th scope="col">Category</Table.Th>
            <StatusHeaders />
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {categories.map((c) => (
            <Table.Tr key={c.name}>
              <Table.Td>
                <Anchor component="button" type="button" size="sm" ta="left" onClick={() => onSelect(c.name)}>
                  {c.name}
                </Anchor>
              </Table.Td>
              <StatusCountCells counts={c} />
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
