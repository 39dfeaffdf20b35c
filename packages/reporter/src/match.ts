/**
 * Include / exclude lists with wildcards (`*` any run of characters, `?` one character), as used by
 * `reportFilter`, `sourceFilters`, `metrics.filter` and (later) target filters. Compiled once.
 */

/** An include / exclude list as written in the configuration. */
export interface IncludeExclude {
  include?: readonly string[];
  exclude?: readonly string[];
}

/** A compiled predicate over one value. */
export type Matcher = (value: string) => boolean;

/** Compiles one wildcard pattern into a predicate (exact match when it has no wildcard). */
export function compileWildcard(pattern: string): Matcher {
  if (!/[*?]/.test(pattern)) return (value) => value === pattern;
  const source = pattern
    .split("")
    .map((c) => (c === "*" ? ".*" : c === "?" ? "." : c.replace(/[\\^$.|+()[\]{}]/g, "\\$&")))
    .join("");
  const re = new RegExp(`^${source}$`, "s");
  return (value) => re.test(value);
}

/**
 * Compiles an include / exclude list: a value passes when it matches an include pattern (or the
 * include list is empty) and matches no exclude pattern. An absent list passes everything.
 */
export function compileIncludeExclude(selection: IncludeExclude | undefined): Matcher {
  const include = (selection?.include ?? []).map(compileWildcard);
  const exclude = (selection?.exclude ?? []).map(compileWildcard);
  if (include.length === 0 && exclude.length === 0) return () => true;
  return (value) => (include.length === 0 || include.some((m) => m(value))) && !exclude.some((m) => m(value));
}

/** True when the list has neither includes nor excludes. */
export function isEmptySelection(selection: IncludeExclude | undefined): boolean {
  return !selection?.include?.length && !selection?.exclude?.length;
}
