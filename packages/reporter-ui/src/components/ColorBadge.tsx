/**
 * A filled Mantine `Badge` in any colour with readable text, drawn with the badge's classes and
 * CSS variables but without the component: the result tables show one or two per row (see
 * `table-cells.tsx` for why). The markup is what `<Badge variant="filled" color={…}>` renders.
 */
import { Badge } from "@mantine/core";
import type { CSSProperties, ReactNode } from "react";
import { readableText } from "../theme/readable.ts";

/** Props of {@link ColorBadge}. */
export interface ColorBadgeProps {
  /** Background, a CSS colour (`#rrggbb`); the text is black or white, whichever reads better. */
  color: string;
  radius: "sm" | "xl";
  /** Data attributes of the root (`data-status`, `data-severity`). */
  data: Record<`data-${string}`, string>;
  children: ReactNode;
}

/** The badge. */
export function ColorBadge({ color, radius, data, children }: ColorBadgeProps) {
  const style = {
    color: readableText(color),
    overflow: "visible",
    flexShrink: 0,
    "--badge-radius": `var(--mantine-radius-${radius})`,
    "--badge-bg": color,
    "--badge-color": "var(--mantine-color-white)",
    "--badge-bd": "calc(0.0625rem * var(--mantine-scale)) solid transparent",
  } as CSSProperties;
  return (
    <div className={Badge.classes.root} data-variant="filled" {...data} style={style}>
      <span className={Badge.classes.label} style={{ overflow: "visible" }}>
        {children}
      </span>
    </div>
  );
}
