/**
 * Glob matching as Kyverno uses it for names, namespaces, labels and pattern strings:
 * `*` matches any run of characters (including none), `?` exactly one. Everything else is literal.
 * Use `hasWildcard` to decide whether a plain equality check is enough.
 */
export function matchWildcard(pattern: string, value: string): boolean {
  if (pattern === "*" || pattern === value) return true;
  // Most calls compare unequal names: a literal first character the value does not start with
  // decides at once, without scanning the pattern for glob characters.
  const first = pattern.charCodeAt(0);
  if (first !== STAR && first !== QUESTION && first !== value.charCodeAt(0)) return false;
  if (!hasWildcard(pattern)) return false;
  // Iterative glob match with backtracking on the last star: linear in practice, no regex built.
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

const STAR = 42; // "*"
const QUESTION = 63; // "?"

/** True when the string contains a `*` or `?` glob character. */
export function hasWildcard(s: string): boolean {
  return s.includes("*") || s.includes("?");
}
