/** A stacked bar chart of rows × keys, coloured by a key → colour map; clicking a bar opens its row. */
import "@mantine/charts/styles.css";
import { BarChart } from "@mantine/charts";
import { barsHeight, type ChartRow } from "./charts-data.ts";

/** Props of {@link StackedBars}. */
export interface StackedBarsProps {
  rows: ChartRow[];
  keys: readonly string[];
  colors: Readonly<Record<string, string>>;
  /** Horizontal bars (labels on the y axis), for long label lists such as namespaces. */
  horizontal?: boolean;
  onSelect?: (label: string) => void;
}

/** The chart; its height grows with the number of rows when horizontal. */
export function StackedBars({ rows, keys, colors, horizontal, onSelect }: StackedBarsProps) {
  const height = barsHeight(rows.length, horizontal);
  const used = keys.filter((key) => rows.some((row) => Number(row[key]) > 0));
  return (
    <BarChart
      h={height}
      data={rows}
      dataKey="label"
      type="stacked"
      orientation={horizontal ? "vertical" : "horizontal"}
      yAxisProps={horizontal ? { width: 130 } : {}}
      withLegend
      legendProps={{
        verticalAlign: "bottom",
        height: 40,
        itemSorter: (item) => keys.indexOf(String(item.dataKey ?? item.value)),
      }}
      series={(used.length ? used : keys).map((key) => ({ name: key, color: colors[key] ?? "gray" }))}
      barProps={
        onSelect
          ? {
              cursor: "pointer",
              onClick: (data: { payload?: { label?: unknown } }) => {
                const label = data.payload?.label;
                if (typeof label === "string") onSelect(label);
              },
            }
          : {}
      }
      maxBarWidth={48}
    />
  );
}
