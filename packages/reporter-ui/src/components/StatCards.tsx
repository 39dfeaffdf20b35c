/** Total results per status as a row of cards, each with its colour swatch and name. */
import type { ApiStatusCounts } from "@kyverno-ts/reporter";
import { ColorSwatch, Group, Paper, SimpleGrid, Text } from "@mantine/core";
import { STATUSES } from "../filters/filter-state.ts";
import { usePalette } from "../theme/palette-context.ts";

/** One card per status with its count. */
export function StatCards({ counts, label }: { counts: ApiStatusCounts; label?: string }) {
  const { palette } = usePalette();
  return (
    <SimpleGrid cols={{ base: 2, sm: 5 }} spacing="sm" aria-label={label ?? "Results per status"} role="list">
      {STATUSES.map((status) => (
        <Paper key={status} withBorder p="sm" role="listitem" data-testid={`stat-${status}`}>
          <Group gap={6}>
            <ColorSwatch color={palette.status[status]} size={12} aria-hidden />
            <Text size="xs" tt="uppercase" fw={700} c="dimmed">
              {status}
            </Text>
          </Group>
          <Text fz={26} fw={700} lh={1.2}>
            {counts[status].toLocaleString("en")}
          </Text>
        </Paper>
      ))}
    </SimpleGrid>
  );
}
