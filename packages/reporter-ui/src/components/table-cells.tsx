/**
 * Table rows, cells, small text and links drawn with Mantine's own classes and CSS variables, but
 * without its components. The result tables render 25 to 100 rows of 5 to 8 cells, and each
 * Mantine component renders through `Box` (style props, theme and context reads): in those tables
 * that was most of the render time of a page. The markup is what `Table.Tr`, `Table.Td`, `Text` and
 * `Anchor` render for the same props, so the tables look and behave the same. Use Mantine's
 * components everywhere else (a few elements: not worth the duplication).
 */
import { Anchor, Table, Text } from "@mantine/core";
import type { CSSProperties, ReactNode } from "react";
import { Link } from "react-router";

/** Mantine's font-size and line-height variables of a `Text` size. */
function textVars(size: "xs" | "sm"): CSSProperties {
  return {
    "--text-fz": `var(--mantine-font-size-${size})`,
    "--text-lh": `var(--mantine-line-height-${size})`,
  } as CSSProperties;
}

const DIMMED: CSSProperties = { color: "var(--mantine-color-dimmed)" };

/** A body row of a `striped` Mantine table; `hover` as the table's `highlightOnHover`. */
export function Row({ hover = false, children }: { hover?: boolean; children: ReactNode }) {
  return (
    <tr className={Table.classes.tr} data-with-row-border data-striped="odd" data-hover={hover || undefined}>
      {children}
    </tr>
  );
}

/** A body cell (`Table.Td`); `right` aligns numbers, `maxWidth` caps long text (px). */
export function Cell({
  right = false,
  maxWidth,
  count,
  children,
}: {
  right?: boolean;
  maxWidth?: number;
  /** `data-count`: the status of a count cell. */
  count?: string;
  children?: ReactNode;
}) {
  const style: CSSProperties | undefined =
    right || maxWidth !== undefined
      ? {
          ...(right ? { textAlign: "right" } : {}),
          ...(maxWidth !== undefined ? { maxWidth: `calc(${maxWidth / 16}rem * var(--mantine-scale))` } : {}),
        }
      : undefined;
  return (
    <td className={Table.classes.td} style={style} data-count={count}>
      {children}
    </td>
  );
}

/**
 * `Text` of size `xs`, `sm` or the default `md`: a paragraph, or a `span` inline; `dimmed` in the
 * dimmed colour.
 */
export function CellText({
  size = "sm",
  span = false,
  dimmed = false,
  weight,
  label,
  style,
  children,
}: {
  size?: "xs" | "sm" | "md";
  span?: boolean;
  dimmed?: boolean;
  /** `font-weight`. */
  weight?: 400 | 600 | 700;
  /** `aria-label`. */
  label?: string;
  style?: CSSProperties;
  children: ReactNode;
}) {
  const props = {
    className: Text.classes.root,
    "data-size": size === "md" ? undefined : size,
    "aria-label": label,
    style: {
      ...(size === "md" ? {} : textVars(size)),
      ...(weight !== undefined ? { fontWeight: weight } : {}),
      ...(dimmed ? DIMMED : {}),
      ...style,
    },
  };
  return span ? <span {...props}>{children}</span> : <p {...props}>{children}</p>;
}

/** An `Anchor` of size `sm` on a router link; `strong` for the row's main link (weight 600). */
export function CellLink({
  to,
  strong = false,
  children,
}: {
  to: string;
  strong?: boolean;
  children: ReactNode;
}) {
  return (
    <Link
      to={to}
      className={`mantine-focus-always ${Anchor.classes.root} ${Text.classes.root}`}
      data-size="sm"
      data-underline="hover"
      style={{ ...textVars("sm"), ...(strong ? { fontWeight: 600 } : {}) }}
    >
      {children}
    </Link>
  );
}
