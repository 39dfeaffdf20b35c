/** A severity as a coloured outlined badge; results without one show a dash. */
import type { ApiSeverity } from "@kyverno-ts/reporter";
import { Badge, Text } from "@mantine/core";
import { usePalette } from "../theme/palette-context.ts";
import { readableText } from "../theme/readable.ts";

/** The badge of one severity (or `—` when there is none). */
export function SeverityBadge({ severity }: { severity: ApiSeverity | undefined }) {
  const { palette } = usePalette();
  if (!severity) {
    return (
      <Text span c="dimmed" aria-label="no severity">
        —
      </Text>
    );
  }
  return (
    <Badge
      color={palette.severity[severity]}
      styles={{
        root: { color: readableText(palette.severity[severity]), overflow: "visible", flexShrink: 0 },
        label: { overflow: "visible" },
      }}
      variant="filled"
      radius="xl"
      data-severity={severity}
    >
      {severity}
    </Badge>
  );
}
