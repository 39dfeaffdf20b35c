/** Status counts in tables: the count cell, and the status headers and cells of a row of counts. */
import type { ApiStatus } from "@kyverno-ts/reporter";
import { Table } from "@mantine/core";
import { STATUSES } from "../filters/filter-state.ts";
import { Cell, CellText } from "./table-cells.tsx";

/** One count cell. */
export function CountCell({ status, count }: { status: ApiStatus; count: number }) {
  const strong = count > 0 && status !== "pass" && status !== "skip";
  return (
    <Cell right count={status}>
      <CellText span size="sm" weight={strong ? 700 : 400} dimmed={count === 0}>
        {count}
      </CellText>
    </Cell>
  );
}

/** The column headers of the five statuses, in the order of `StatusCountCells`. */
export function StatusHeaders() {
  return STATUSES.map((s) => (
    <Table.Th key={s} scope="col" ta="right" tt="capitalize">
      {s}
    </Table.Th>
  ));
}

/** A row's count per status, one cell each, in the order of `StatusHeaders`. */
export function StatusCountCells({ counts }: { counts: Readonly<Record<ApiStatus, number>> }) {
  return STATUSES.map((s) => <CountCell key={s} status={s} count={counts[s]} />);
}
