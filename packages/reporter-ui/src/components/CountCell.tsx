/** A status count in a table cell: dimmed when zero, bold in the status colour otherwise. */
import type { ApiStatus } from "@kyverno-ts/reporter";
import { Table, Text } from "@mantine/core";

/** One count cell. */
export function CountCell({ status, count }: { status: ApiStatus; count: number }) {
  const strong = count > 0 && status !== "pass" && status !== "skip";
  return (
    <Table.Td ta="right" data-count={status}>
      <Text span size="sm" fw={strong ? 700 : 400} c={count === 0 ? "dimmed" : undefined}>
        {count}
      </Text>
    </Table.Td>
  );
}
