/** A severity as a coloured badge; results without one show a dash. */
import type { ApiSeverity } from "@kyverno-ts/reporter";
import { usePalette } from "../theme/palette-context.ts";
import { ColorBadge } from "./ColorBadge.tsx";
import { CellText } from "./table-cells.tsx";

/** The badge of one severity (or `—` when there is none). */
export function SeverityBadge({ severity }: { severity: ApiSeverity | undefined }) {
  const { palette } = usePalette();
  if (!severity) {
    return (
      <CellText span dimmed size="md" label="no severity">
        —
      </CellText>
    );
  }
  return (
    <ColorBadge color={palette.severity[severity]} radius="xl" data={{ "data-severity": severity }}>
      {severity}
    </ColorBadge>
  );
}
