/** A result status as a coloured badge that also spells the status out. */
import type { ApiStatus } from "@kyverno-ts/reporter";
import { usePalette } from "../theme/palette-context.ts";
import { ColorBadge } from "./ColorBadge.tsx";

/** The badge of one status. */
export function StatusBadge({ status }: { status: ApiStatus }) {
  const { palette } = usePalette();
  return (
    <ColorBadge color={palette.status[status]} radius="sm" data={{ "data-status": status }}>
      {status}
    </ColorBadge>
  );
}
