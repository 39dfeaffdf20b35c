/**
 * Renders a table in upstream Kyverno CLI's box style:
 *
 * ```
 * │────│────────│
 * │ ID │ POLICY │
 * │────│────────│
 * │ 1  │ foo    │
 * │────│────────│
 * ```
 * Cells are single-line: newlines inside a cell are shown as spaces.
 */
export function renderTable(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const clean = (cell: string) => cell.replace(/\s*\n\s*/g, " ");
  const body = rows.map((row) => headers.map((_, i) => clean(row[i] ?? "")));
  const widths = headers.map((h, i) => Math.max(h.length, ...body.map((row) => (row[i] ?? "").length)));
  const line = (cells: readonly string[]) =>
    `│ ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(" │ ")} │`;
  const rule = `│${widths.map((w) => "─".repeat(w + 2)).join("│")}│`;
  return [rule, line(headers), rule, ...body.map(line), rule].join("\n");
}
