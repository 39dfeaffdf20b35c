/**
 * Renders report data as an email: HTML with inline styles only (tables, no `<style>` block, no
 * images, so Outlook / Gmail show it as intended) and a plain-text alternative with the same content.
 */
import type { StatusCounts } from "../model/types.js";
import type {
  EmailReportData,
  RenderedEmail,
  ScopeViolations,
  SourceSummary,
  SourceViolations,
} from "./types.js";

/** What the header of every report shows. */
export interface RenderContext {
  titlePrefix: string;
  clusterName: string;
  /** When the report was built (ms since the epoch). */
  generatedAt: number;
}

const COLUMNS = ["pass", "fail", "warn", "error", "skip"] as const;
const COLOURS: Record<string, string> = {
  pass: "#198754",
  fail: "#dc3545",
  warn: "#fd7e14",
  error: "#6f42c1",
  skip: "#6c757d",
};
const FONT = "font-family:Arial,Helvetica,sans-serif;";
const TABLE = "border-collapse:collapse;width:100%;margin:0 0 16px 0;font-size:13px;";
const TH = "border:1px solid #dee2e6;background:#f1f3f5;padding:6px 8px;text-align:left;";
const TD = "border:1px solid #dee2e6;padding:6px 8px;vertical-align:top;";

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(value: string): string {
  return value
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

/** The subject as upstream: `<titlePrefix> Summary on <clusterName>` (without ` on …` when no cluster name). */
export function emailSubject(kind: EmailReportData["kind"], ctx: RenderContext): string {
  const title = kind === "summary" ? "Summary" : "Violations";
  const prefix = ctx.titlePrefix.trim();
  const cluster = ctx.clusterName.trim();
  return `${prefix ? `${prefix} ` : ""}${title}${cluster ? ` on ${cluster}` : ""}`;
}

const cell = (text: string, style = ""): string => `<td style="${TD}${style}">${escapeHtml(text)}</td>`;
const headRow = (labels: readonly string[]): string =>
  `<tr>${labels.map((l) => `<th style="${TH}">${escapeHtml(l)}</th>`).join("")}</tr>`;
const countCell = (status: string, n: number): string =>
  cell(
    String(n),
    n > 0 && status !== "pass" && status !== "skip" ? `color:${COLOURS[status]};font-weight:bold;` : "",
  );

function page(ctx: RenderContext, title: string, body: string): string {
  const cluster = ctx.clusterName ? ` &middot; Cluster: <b>${escapeHtml(ctx.clusterName)}</b>` : "";
  const when = new Date(ctx.generatedAt).toISOString().replace("T", " ").slice(0, 16);
  return [
    '<!DOCTYPE html><html><head><meta charset="utf-8">',
    `<title>${escapeHtml(title)}</title></head>`,
    `<body style="margin:0;padding:16px;background:#ffffff;color:#212529;${FONT}">`,
    `<h1 style="font-size:20px;margin:0 0 4px 0;${FONT}">${escapeHtml(title)}</h1>`,
    `<p style="margin:0 0 16px 0;color:#6c757d;font-size:12px;">Generated ${when} UTC${cluster}</p>`,
    body,
    '<p style="margin:16px 0 0 0;color:#adb5bd;font-size:11px;">Policy Reporter</p>',
    "</body></html>",
  ].join("\n");
}

function countsRow(label: string, counts: StatusCounts): string {
  return `<tr>${cell(label)}${COLUMNS.map((s) => countCell(s, counts[s])).join("")}</tr>`;
}

function summaryHtml(sources: readonly SourceSummary[]): string {
  if (sources.length === 0) return "<p>No policy results.</p>";
  return sources
    .map((s) => {
      const rows: string[] = [];
      if (s.cluster) rows.push(countsRow("Cluster scope", s.cluster));
      for (const ns of s.namespaces) rows.push(countsRow(ns.namespace, ns));
      return [
        `<h2 style="font-size:16px;margin:16px 0 8px 0;${FONT}">${escapeHtml(s.source)}</h2>`,
        `<table style="${TABLE}">`,
        headRow(["Namespace", "Pass", "Fail", "Warn", "Error", "Skip"]),
        ...rows,
        "</table>",
      ].join("\n");
    })
    .join("\n");
}

function pad(values: readonly string[], widths: readonly number[]): string {
  return values
    .map((v, i) => v.padEnd(widths[i] ?? 0))
    .join("  ")
    .trimEnd();
}

function summaryText(sources: readonly SourceSummary[]): string {
  if (sources.length === 0) return "No policy results.";
  const header = ["Namespace", "Pass", "Fail", "Warn", "Error", "Skip"];
  return sources
    .map((s) => {
      const rows: string[][] = [];
      if (s.cluster) rows.push(["Cluster scope", ...COLUMNS.map((c) => String(s.cluster?.[c] ?? 0))]);
      for (const ns of s.namespaces) rows.push([ns.namespace, ...COLUMNS.map((c) => String(ns[c]))]);
      const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
      return [`== ${s.source} ==`, pad(header, widths), ...rows.map((r) => pad(r, widths))].join("\n");
    })
    .join("\n\n");
}

const resourceLabel = (v: { kind: string; name: string }): string =>
  v.kind || v.name ? `${v.kind} ${v.name}`.trim() : "-";

function scopeHtml(label: string, scope: ScopeViolations): string {
  const rows = scope.items.map(
    (v) =>
      `<tr>${cell(v.policy)}${cell(v.rule)}${cell(resourceLabel(v))}` +
      `${cell(v.status, `color:${COLOURS[v.status]};font-weight:bold;`)}${cell(v.severity || "-")}${cell(v.message)}</tr>`,
  );
  return [
    `<h3 style="font-size:14px;margin:12px 0 6px 0;${FONT}">${escapeHtml(label)} ` +
      `<span style="color:#6c757d;font-weight:normal;">(${scope.items.length} violations, ${scope.passed} passed)</span></h3>`,
    `<table style="${TABLE}">`,
    headRow(["Policy", "Rule", "Resource", "Status", "Severity", "Message"]),
    ...rows,
    "</table>",
  ].join("\n");
}

function scopes(s: SourceViolations): [string, ScopeViolations][] {
  const out: [string, ScopeViolations][] = [];
  if (s.cluster) out.push(["Cluster scope", s.cluster]);
  for (const ns of s.namespaces) out.push([`Namespace ${ns.namespace}`, ns]);
  return out;
}

function truncatedNote(truncated: number): string {
  return truncated > 0 ? `${truncated} more violations are not listed.` : "";
}

function violationsHtml(sources: readonly SourceViolations[], truncated: number): string {
  if (sources.length === 0) return "<p>No violations.</p>";
  const note = truncatedNote(truncated);
  return [
    ...sources.map((s) =>
      [
        `<h2 style="font-size:16px;margin:16px 0 8px 0;${FONT}">${escapeHtml(s.source)}</h2>`,
        ...scopes(s).map(([label, scope]) => scopeHtml(label, scope)),
      ].join("\n"),
    ),
    note ? `<p style="color:#6c757d;">${escapeHtml(note)}</p>` : "",
  ].join("\n");
}

function violationsText(sources: readonly SourceViolations[], truncated: number): string {
  if (sources.length === 0) return "No violations.";
  const blocks = sources.map((s) =>
    [
      `== ${s.source} ==`,
      ...scopes(s).map(([label, scope]) =>
        [
          `-- ${label} (${scope.items.length} violations, ${scope.passed} passed) --`,
          ...scope.items.map(
            (v) =>
              `[${v.status.toUpperCase()}] ${v.policy} / ${v.rule} on ${resourceLabel(v)}` +
              `${v.severity ? ` (${v.severity})` : ""}: ${v.message}`,
          ),
        ].join("\n"),
      ),
    ].join("\n"),
  );
  const note = truncatedNote(truncated);
  return [...blocks, ...(note ? [note] : [])].join("\n\n");
}

/** Renders a report: subject, HTML body and plain-text alternative. */
export function renderEmail(data: EmailReportData, ctx: RenderContext): RenderedEmail {
  const subject = emailSubject(data.kind, ctx);
  const title = data.kind === "summary" ? "Summary Report" : "Violations Report";
  const heading = ctx.clusterName ? `${title} on ${ctx.clusterName}` : title;
  const when = `Generated ${new Date(ctx.generatedAt).toISOString().replace("T", " ").slice(0, 16)} UTC`;
  if (data.kind === "summary") {
    return {
      subject,
      html: page(ctx, heading, summaryHtml(data.sources)),
      text: `${heading}\n${when}\n\n${summaryText(data.sources)}\n`,
    };
  }
  return {
    subject,
    html: page(ctx, heading, violationsHtml(data.sources, data.truncated)),
    text: `${heading}\n${when}\n\n${violationsText(data.sources, data.truncated)}\n`,
  };
}
