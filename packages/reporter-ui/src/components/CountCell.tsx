/** A status count in a table cell: dimmed when zero, bold in the status colour otherwise. */
import type { ApiStatus } from "@kyverno-ts/reporter";
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
