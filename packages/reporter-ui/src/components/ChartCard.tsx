/** A titled card around a chart, with a text summary for screen readers and an optional footer. */
import { Paper, Title, VisuallyHidden } from "@mantine/core";
import type { ReactNode } from "react";

/** Props of {@link ChartCard}. */
export interface ChartCardProps {
  title: string;
  /** Read instead of the drawing (which is hidden from assistive technology). */
  summary: string;
  /** Links or actions under the chart (reachable by keyboard). */
  footer?: ReactNode;
  children: ReactNode;
}

/** The card. */
export function ChartCard({ title, summary, footer, children }: ChartCardProps) {
  return (
    <Paper withBorder p="md" component="section" aria-label={title}>
      <Title order={2} size="h5" mb="sm">
        {title}
      </Title>
      <VisuallyHidden>{summary}</VisuallyHidden>
      <div aria-hidden>{children}</div>
      {footer}
    </Paper>
  );
}
