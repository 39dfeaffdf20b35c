/** A donut of counts per key (statuses or severities) with a legend that lists every count. */
import "@mantine/charts/styles.css";
import { DonutChart } from "@mantine/charts";
import { ColorSwatch, Group, Stack, Text } from "@mantine/core";

/** Props of {@link CountsDonut}. */
export interface CountsDonutProps {
  counts: Readonly<Record<string, number>>;
  keys: readonly string[];
  colors: Readonly<Record<string, string>>;
}

/** The donut (hidden from assistive technology) beside its legend (read as a list). */
export function CountsDonut({ counts, keys, colors }: CountsDonutProps) {
  const data = keys
    .filter((key) => (counts[key] ?? 0) > 0)
    .map((key) => ({ name: key, value: counts[key] ?? 0, color: colors[key] ?? "gray" }));
  const total = data.reduce((sum, d) => sum + d.value, 0);
  return (
    <Group gap="xl" wrap="nowrap" align="center">
      <div aria-hidden>
        <DonutChart
          data={data.length ? data : [{ name: "none", value: 1, color: "gray.3" }]}
          size={160}
          thickness={26}
          chartLabel={total}
          withTooltip={data.length > 0}
        />
      </div>
      <Stack gap={4} component="ul" style={{ listStyle: "none", padding: 0, margin: 0 }}>
        {keys.map((key) => (
          <Group key={key} gap={8} component="li" wrap="nowrap">
            <ColorSwatch color={colors[key] ?? "gray"} size={12} aria-hidden />
            <Text size="sm" tt="capitalize" w={70}>
              {key}
            </Text>
            <Text size="sm" fw={700}>
              {counts[key] ?? 0}
            </Text>
          </Group>
        ))}
      </Stack>
    </Group>
  );
}
