// The metric names a PromQL expression reads, for the check that every dashboard panel and alert
// names a metric the binaries emit. Good enough for the expressions written here: strings, label
// matchers, range and grouping lists, functions and keywords are removed, and what remains are
// metric names.
//
// Plain Node 24 type stripping: erasable TypeScript only.

const KEYWORDS = new Set([
  "by",
  "without",
  "on",
  "ignoring",
  "group_left",
  "group_right",
  "bool",
  "and",
  "or",
  "unless",
  "offset",
  "inf",
  "nan",
]);

/** Metric names read by `expr` (sorted, unique). */
export function metricNames(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, " ")
    .replace(/\[[^\]]*\]/g, " ")
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, " ")
    .replace(/\$__\w+|\$\w+/g, " ");
  const names = new Set<string>();
  for (const m of stripped.matchAll(/[A-Za-z_:][A-Za-z0-9_:]*/g)) {
    const word = m[0];
    const after = stripped.slice((m.index ?? 0) + word.length).trimStart();
    if (after.startsWith("(")) continue; // a function or aggregation
    if (KEYWORDS.has(word.toLowerCase())) continue;
    if (/^[0-9]/.test(word)) continue;
    names.add(word);
  }
  return [...names].sort();
}

/**
 * The family a sample name belongs to: a histogram's `_bucket`, `_sum` and `_count` series belong to
 * the histogram; `histograms` are the names of the histogram families.
 */
export function familyOf(name: string, histograms: ReadonlySet<string>): string {
  for (const suffix of ["_bucket", "_sum", "_count"]) {
    if (name.endsWith(suffix) && histograms.has(name.slice(0, -suffix.length)))
      return name.slice(0, -suffix.length);
  }
  return name;
}
