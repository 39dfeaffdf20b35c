/** Policies with category, severity and counts per status, paged in the browser. */
import type { Policy } from "@kyverno-ts/reporter";
import { Anchor, Table, Text } from "@mantine/core";
import { Link } from "react-router";
import { STATUSES } from "../filters/filter-state.ts";
import { usePageParam } from "../filters/use-filters.ts";
import { CountCell } from "./CountCell.tsx";
import { paths } from "./links.ts";
import { SeverityBadge } from "./SeverityBadge.tsx";
import { TablePager } from "./TablePager.tsx";

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
              {STATUSES.map((s) => (
                <Table.Th key={s} scope="col" ta="right" tt="capitalize">
                  {s}
                </Table.Th>
              ))}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {shown.map((p) => (
              <Table.Tr key={`${p.source}/${p.category}/${p.policy}`}>
                <Table.Td>
                  <Anchor component={Link} to={paths.policy(p.source, p.policy)} size="sm" fw={600}>
                    {p.policy}
                  </Anchor>
                  <Text size="xs" c="dimmed">
                    {p.source}
                  </Text>
                </Table.Td>
                <Table.Td>{p.category}</Table.Td>
                <Table.Td>
                  <SeverityBadge severity={p.severity} />
                </Table.Td>
                {STATUSES.map((s) => (
                  <CountCell key={s} status={s} count={p.results[s]} />
                ))}
              </Table.Tr>
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
