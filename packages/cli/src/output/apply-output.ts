import type { ResourceRef } from "@kyverno-ts/engine";
import { stringify } from "yaml";
import type { Evaluated } from "../run/judge.js";
import type { ResultCounts } from "../run/report-result.js";
import { emptyCounts, reportResult } from "../run/report-result.js";
import { ApplyMessages } from "./messages.js";
import type { CliClusterReport } from "./report.js";
import { renderTable } from "./table.js";

/** Resource path as upstream prints it: `namespace/Kind/name` (empty namespace for cluster-scoped). */
export function resourcePath(r: ResourceRef): string {
  return `${r.namespace}/${r.kind}/${r.name}`;
}

/** Counts the report results of all rule responses (validate, mutate and generate), as upstream's summary. */
export function countEvaluated(evaluated: readonly Evaluated[], auditWarn: boolean): ResultCounts {
  const counts = emptyCounts();
  for (const e of evaluated) {
    for (const rule of e.response.rules) counts[reportResult(e.policy, rule, auditWarn)]++;
  }
  return counts;
}

/**
 * Upstream's per-response blocks: for each policy and resource with failures (or errors, or
 * warnings), a heading then one numbered line per rule with its message. Mutate and generate rules
 * that errored (a bad patch, a missing clone source) are listed like validate rules.
 */
export function renderViolations(evaluated: readonly Evaluated[], auditWarn: boolean): string {
  const blocks: string[] = [];
  for (const e of evaluated) {
    const by: Record<"fail" | "error" | "warn", Array<{ rule: string; message: string }>> = {
      fail: [],
      error: [],
      warn: [],
    };
    for (const rule of e.response.rules) {
      const result = reportResult(e.policy, rule, auditWarn);
      if (result === "fail" || result === "error" || result === "warn")
        by[result].push({ rule: rule.name, message: rule.message });
    }
    const path = resourcePath(e.response.resource);
    const name = e.response.policy.name;
    const headers = {
      fail: ApplyMessages.failedHeader,
      error: ApplyMessages.errorHeader,
      warn: ApplyMessages.warnHeader,
    };
    for (const status of ["fail", "error", "warn"] as const) {
      const rules = by[status];
      if (rules.length === 0) continue;
      const lines = rules.map((r, i) => ApplyMessages.ruleLine(i + 1, r.rule, r.message));
      blocks.push(`\n${headers[status](name, path)}\n${lines.join("\n")}`);
    }
  }
  return blocks.join("\n");
}

/** The `--table` view: one row per rule response, with the message when `detailed`. */
export function renderApplyTable(
  evaluated: readonly Evaluated[],
  auditWarn: boolean,
  detailed: boolean,
): string {
  const headers = detailed
    ? ["ID", "POLICY", "RULE", "RESOURCE", "RESULT", "MESSAGE"]
    : ["ID", "POLICY", "RULE", "RESOURCE", "RESULT"];
  const rows: string[][] = [];
  for (const e of evaluated) {
    for (const rule of e.response.rules) {
      const result = reportResult(e.policy, rule, auditWarn);
      const row = [
        String(rows.length + 1),
        e.response.policy.name,
        rule.name,
        resourcePath(e.response.resource),
        capitalize(result),
      ];
      if (detailed) row.push(rule.message);
      rows.push(row);
    }
  }
  return renderTable(headers, rows);
}

/** `pass` → `Pass`, as upstream's tables print results. */
export function capitalize(s: string): string {
  return s === "" ? s : `${s[0]?.toUpperCase()}${s.slice(1)}`;
}

/** Serialises a report as YAML (upstream's default) or JSON. */
export function renderReport(report: CliClusterReport, format: "yaml" | "json"): string {
  return format === "json" ? `${JSON.stringify(report, null, 2)}\n` : stringify(report, { lineWidth: 0 });
}
