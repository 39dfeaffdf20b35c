/**
 * Result filtering of a target (`minimumSeverity`, `sources`, `filter`), applied by wrapping the target.
 */
import { meetsMinimumSeverity, resultPriority } from "../severity.js";
import type { NotifiableResult, ReportRef, SendContext, Severity, Target } from "../types.js";
import { matchWildcard } from "./wildcard.js";

/** Include / exclude lists with `*` and `?` wildcards. With both, a value must match include and not exclude. */
export interface IncludeExclude {
  include?: readonly string[];
  exclude?: readonly string[];
}

/** Namespace filter: names, and a label selector on the namespace (`key: valuePattern`, all must match). */
export interface NamespaceFilter extends IncludeExclude {
  selector?: Readonly<Record<string, string>>;
}

/** The `filter` block of a target, keys as in Policy Reporter's values. */
export interface FilterConfig {
  /** Applies to namespaced results only; cluster-scoped results pass (as upstream). */
  namespaces?: NamespaceFilter;
  status?: IncludeExclude;
  severities?: IncludeExclude;
  /** Legacy priorities (debug, info, warning, error, critical). */
  priorities?: IncludeExclude;
  policies?: IncludeExclude;
  /** Case-insensitive. */
  sources?: IncludeExclude;
  /** Entries are `key` (label present) or `key:valuePattern`. */
  reportLabels?: IncludeExclude;
}

/** Everything that decides whether a result reaches a target. */
export interface TargetFilter {
  /** Results below this severity, or without severity, are dropped. */
  minimumSeverity?: Severity;
  /** Only results of these sources (case-insensitive); empty = all. */
  sources?: readonly string[];
  filter?: FilterConfig;
}

/** Labels of a namespace, for `filter.namespaces.selector`; undefined when unknown. */
export type NamespaceLabelsLookup = (
  namespace: string,
) => Readonly<Record<string, string>> | undefined | Promise<Readonly<Record<string, string>> | undefined>;

/** Optional dependencies of `withFilter`. */
export interface FilterDeps {
  /** Needed when a namespace selector is configured; without it a selector matches nothing. */
  namespaceLabels?: NamespaceLabelsLookup;
}

/** True when the value passes the include / exclude lists. */
export function matchesIncludeExclude(
  value: string,
  rules: IncludeExclude | undefined,
  ignoreCase = false,
): boolean {
  if (rules === undefined) return true;
  const norm = (s: string): string => (ignoreCase ? s.toLowerCase() : s);
  const v = norm(value);
  const any = (list: readonly string[]): boolean => list.some((p) => matchWildcard(norm(p), v));
  if (rules.include !== undefined && rules.include.length > 0 && !any(rules.include)) return false;
  if (rules.exclude !== undefined && rules.exclude.length > 0 && any(rules.exclude)) return false;
  return true;
}

/** True when the report labels pass `reportLabels` (entries `key` or `key:valuePattern`). */
export function matchesReportLabels(
  labels: Readonly<Record<string, string>> | undefined,
  rules: IncludeExclude | undefined,
): boolean {
  if (rules === undefined) return true;
  const entries = Object.entries(labels ?? {});
  const any = (list: readonly string[]): boolean =>
    list.some((entry) => {
      const sep = entry.indexOf(":");
      const key = sep < 0 ? entry : entry.slice(0, sep);
      const pattern = sep < 0 ? "*" : entry.slice(sep + 1);
      return entries.some(([k, v]) => matchWildcard(key, k) && matchWildcard(pattern, v));
    });
  if (rules.include !== undefined && rules.include.length > 0 && !any(rules.include)) return false;
  if (rules.exclude !== undefined && rules.exclude.length > 0 && any(rules.exclude)) return false;
  return true;
}

/**
 * The synchronous part of a filter: everything except the namespace selector.
 * Use `withFilter` to apply a whole `TargetFilter` to a target.
 */
export function matchesFilter(result: NotifiableResult, spec: TargetFilter, report?: ReportRef): boolean {
  if (!meetsMinimumSeverity(result, spec.minimumSeverity)) return false;
  if (spec.sources !== undefined && spec.sources.length > 0) {
    const source = (result.source ?? "").toLowerCase();
    if (!spec.sources.some((s) => s.toLowerCase() === source)) return false;
  }
  const f = spec.filter;
  if (f === undefined) return true;
  const namespace = result.resource?.namespace ?? report?.namespace ?? "";
  if (namespace !== "" && !matchesIncludeExclude(namespace, f.namespaces)) return false;
  return (
    matchesIncludeExclude(result.result, f.status) &&
    matchesIncludeExclude(result.severity ?? "", f.severities) &&
    matchesIncludeExclude(resultPriority(result), f.priorities) &&
    matchesIncludeExclude(result.policy, f.policies) &&
    matchesIncludeExclude(result.source ?? "", f.sources, true) &&
    matchesReportLabels(report?.labels, f.reportLabels)
  );
}

/**
 * Wraps `target` so only results passing `spec` reach it; a batch that filters down to nothing sends
 * nothing. Channels are further `withFilter` wrappers around their own targets: a filter is never inherited.
 */
export function withFilter(target: Target, spec: TargetFilter, deps: FilterDeps = {}): Target {
  const selector = spec.filter?.namespaces?.selector;
  const hasSelector = selector !== undefined && Object.keys(selector).length > 0;

  const passes = async (result: NotifiableResult, context: SendContext | undefined): Promise<boolean> => {
    const report = context?.report;
    // A resolved result is judged by the status it had: it reaches the targets its failure reached.
    const previous = context?.event === "resolved" ? context.previousStatus?.[result.id] : undefined;
    const subject = previous === undefined ? result : { ...result, result: previous };
    if (!matchesFilter(subject, spec, report)) return false;
    if (!hasSelector) return true;
    const namespace = result.resource?.namespace ?? report?.namespace ?? "";
    if (namespace === "") return true;
    const labels = (await deps.namespaceLabels?.(namespace)) ?? undefined;
    if (labels === undefined) return false;
    return Object.entries(selector).every(([k, pattern]) => {
      const value = labels[k];
      return value !== undefined && matchWildcard(pattern, value);
    });
  };

  return {
    name: target.name,
    async send(result, context?: SendContext) {
      if (await passes(result, context)) await target.send(result, context);
    },
    async sendBatch(results, context?: SendContext) {
      const kept: NotifiableResult[] = [];
      for (const r of results) if (await passes(r, context)) kept.push(r);
      if (kept.length > 0) await target.sendBatch(kept, context);
    },
  };
}
