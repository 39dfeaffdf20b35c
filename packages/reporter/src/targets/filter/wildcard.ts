/**
 * Glob matching for filter values: `*` matches any run of characters, `?` exactly one.
 */

/** True when `value` matches the glob `pattern` (`*`, `?`); without glob characters it is equality. */
export function matchWildcard(pattern: string, value: string): boolean {
  if (!pattern.includes("*") && !pattern.includes("?")) return pattern === value;
  let p = 0;
  let v = 0;
  let star = -1;
  let mark = 0;
  while (v < value.length) {
    const pc = pattern[p];
    if (pc === "?" || (pc !== undefined && pc !== "*" && pc === value[v])) {
      p++;
      v++;
    } else if (pc === "*") {
      star = p++;
      mark = v;
    } else if (star >= 0) {
      p = star + 1;
      v = ++mark;
    } else {
      return false;
    }
  }
  while (pattern[p] === "*") p++;
  return p === pattern.length;
}
