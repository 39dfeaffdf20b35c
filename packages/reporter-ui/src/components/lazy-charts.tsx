/**
 * The chart components, loaded on first use: recharts and Mantine's chart styles are half of the
 * dashboard's JavaScript, and the numbers and tables should not wait for them. Until a chart's code
 * is there, a placeholder of the chart's size keeps the layout still.
 */
import { Skeleton } from "@mantine/core";
import { lazy, Suspense } from "react";
import type { CountsDonutProps } from "./CountsDonut.tsx";
import { barsHeight } from "./charts-data.ts";
import type { StackedBarsProps } from "./StackedBars.tsx";

/** Retries a failed chunk load twice (a server restarting or redeploying), then gives up. */
async function retried<T>(load: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await load();
    } catch (error) {
      if (attempt >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, 500 * attempt));
    }
  }
}

const Bars = lazy(() => retried(() => import("./StackedBars.tsx")).then((m) => ({ default: m.StackedBars })));
const Donut = lazy(() =>
  retried(() => import("./CountsDonut.tsx")).then((m) => ({ default: m.CountsDonut })),
);

function Placeholder({ height }: { height: number }) {
  return <Skeleton h={height} radius="sm" aria-label="Loading chart" />;
}

/** {@link StackedBars}, loaded on first use. */
export function LazyStackedBars(props: StackedBarsProps) {
  return (
    <Suspense fallback={<Placeholder height={barsHeight(props.rows.length, props.horizontal)} />}>
      <Bars {...props} />
    </Suspense>
  );
}

/** {@link CountsDonut}, loaded on first use. */
export function LazyCountsDonut(props: CountsDonutProps) {
  return (
    <Suspense fallback={<Placeholder height={160} />}>
      <Donut {...props} />
    </Suspense>
  );
}
