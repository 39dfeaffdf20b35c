/** A result status as a coloured badge that also spells the status out. */
import type { ApiStatus } from "@kyverno-ts/reporter";
import { Badge } from "@mantine/core";
import { usePalette } from "../theme/palette-context.ts";
import { readableText } from "../theme/readable.ts";

/** The badge of one status. */
export function StatusBadge({ status }: { status: ApiStatus }) {
  const { palette } = usePalette();
  return (
    <Badge
      color={palette.status[status]}
      styles={{
        root: { color: readableText(palette.status[status]), overflow: "visible", flexShrink: 0 },
        label: { overflow: "visible" },
      }}
      variant="filled"
      radius="sm"
      data-status={status}
    >
      {status}
    </Badge>
  );
}
