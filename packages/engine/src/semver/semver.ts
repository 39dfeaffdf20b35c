/**
 * Semantic versions with github.com/blang/semver/v4 semantics: strict `Parse`, precedence order and
 * `ParseRange` (space = AND, `||` = OR, operators `= == != ! > >= < <=`, `x` wildcards expanded).
 * `parseSemver` and `parseRange` throw on invalid input with blang's messages; use `tryParseSemver`
 * where an invalid version is simply "not a version".
 */

/** A parsed semantic version; build metadata is not kept. */
export interface Version {
  major: bigint;
  minor: bigint;
  patch: bigint;
  pre: Array<bigint | string>;
}

/** 0.0.0, what upstream compares when a version does not parse. */
export const ZERO: Version = { major: 0n, minor: 0n, patch: 0n, pre: [] };

function numeric(part: string, what: string): bigint {
  if (!/^\d+$/.test(part)) throw new Error(`Invalid character(s) found in ${what} number "${part}"`);
  if (part.length > 1 && part.startsWith("0"))
    throw new Error(`${what} number must not contain leading zeroes "${part}"`);
  return BigInt(part);
}

/** blang/semver Parse. */
export function parseSemver(s: string): Version {
  if (s === "") throw new Error("Version string empty");
  const parts = s.split(".");
  if (parts.length < 3) throw new Error("No Major.Minor.Patch elements found");
  let rest = parts.slice(2).join(".");
  const major = numeric(parts[0] ?? "", "Major");
  const minor = numeric(parts[1] ?? "", "Minor");
  let build: string[] = [];
  const plus = rest.indexOf("+");
  if (plus >= 0) {
    build = rest.slice(plus + 1).split(".");
    rest = rest.slice(0, plus);
  }
  let pre: string[] = [];
  const dash = rest.indexOf("-");
  if (dash >= 0) {
    pre = rest.slice(dash + 1).split(".");
    rest = rest.slice(0, dash);
  }
  const patch = numeric(rest, "Patch");
  const prerelease = pre.map((p): bigint | string => {
    if (p === "") throw new Error("Prerelease is empty");
    if (/^\d+$/.test(p)) {
      if (p.length > 1 && p.startsWith("0"))
        throw new Error(`Numeric PreRelease version must not contain leading zeroes "${p}"`);
      return BigInt(p);
    }
    if (!/^[0-9A-Za-z-]+$/.test(p)) throw new Error(`Invalid character(s) found in prerelease "${p}"`);
    return p;
  });
  for (const b of build) {
    if (!/^[0-9A-Za-z-]+$/.test(b)) throw new Error(`Invalid character(s) found in build meta data "${b}"`);
  }
  return { major, minor, patch, pre: prerelease };
}

function cmp<T extends bigint | string>(a: T, b: T): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** blang/semver Version.Compare. */
export function compareSemver(a: Version, b: Version): number {
  const core = cmp(a.major, b.major) || cmp(a.minor, b.minor) || cmp(a.patch, b.patch);
  if (core !== 0) return core;
  if (a.pre.length === 0 || b.pre.length === 0)
    return b.pre.length - a.pre.length === 0 ? 0 : a.pre.length === 0 ? 1 : -1;
  for (let i = 0; i < Math.min(a.pre.length, b.pre.length); i++) {
    const x = a.pre[i] ?? "";
    const y = b.pre[i] ?? "";
    if (typeof x === typeof y) {
      const c = typeof x === "bigint" ? cmp(x, y as bigint) : cmp(String(x), String(y));
      if (c !== 0) return c;
    } else return typeof x === "bigint" ? -1 : 1;
  }
  return Math.sign(a.pre.length - b.pre.length);
}

/** blang's splitAndTrim: split on spaces not preceded by an operator character. */
function splitAndTrim(s: string): string[] {
  const result: string[] = [];
  let last = 0;
  let lastChar = "";
  for (let i = 0; i < s.length; i++) {
    if (s[i] === " " && !"><=".includes(lastChar === "" ? "x" : lastChar)) {
      if (last < i - 1) result.push(s.slice(last, i));
      last = i + 1;
    } else if (s[i] !== " ") lastChar = s[i] ?? "";
  }
  if (last < s.length - 1) result.push(s.slice(last));
  return result.map((r) => r.replaceAll(" ", ""));
}

function splitComparator(s: string): [string, string] {
  const i = s.search(/\d/);
  if (i < 0) throw new Error(`Could not get version from string: "${s}"`);
  return [s.slice(0, i).trim(), s.slice(i)];
}

function bump(v: string, index: 0 | 1): string {
  const parts = v.split(".");
  parts[index] = String(Number(parts[index]) + 1);
  return parts.join(".");
}

/** blang's expandWildcardVersion for one comparator containing an `x`. */
function expandWildcard(part: string): string[] {
  if (!part.includes("x")) return [part];
  const [op, v] = splitComparator(part);
  const pieces = v.split(".");
  const type = pieces[pieces.length - 1] === "x" ? pieces.length : 0; // 1 major, 2 minor, 3 patch
  let flat = v.replace(".x.x", ".x").replace(".x", ".0");
  if (flat.split(".").length === 2) flat += ".0";
  const out: string[] = [];
  let resultOp = "";
  let increment = false;
  if (op === ">") [resultOp, increment] = [">=", true];
  else if (op === ">=") resultOp = ">=";
  else if (op === "<") resultOp = "<";
  else if (op === "<=") [resultOp, increment] = ["<", true];
  else if (op === "" || op === "=" || op === "==") {
    out.push(`>=${flat}`);
    [resultOp, increment] = ["<", true];
  } else if (op === "!=" || op === "!") {
    out.push(`<${flat}`);
    [resultOp, increment] = [">=", true];
  }
  let version = flat;
  if (increment) version = type === 3 ? bump(flat, 1) : type === 2 ? bump(flat, 0) : "";
  out.push(resultOp + version);
  return out;
}

const COMPARATORS: Record<string, (c: number) => boolean> = {
  "": (c) => c === 0,
  "=": (c) => c === 0,
  "==": (c) => c === 0,
  "!": (c) => c !== 0,
  "!=": (c) => c !== 0,
  ">": (c) => c > 0,
  ">=": (c) => c >= 0,
  "<": (c) => c < 0,
  "<=": (c) => c <= 0,
};

/** blang/semver ParseRange: a predicate on versions. */
export function parseRange(s: string): (v: Version) => boolean {
  const parts = splitAndTrim(s);
  const groups: string[][] = [[]];
  parts.forEach((p, i) => {
    if (p !== "||") {
      groups[groups.length - 1]?.push(p);
      return;
    }
    if (i === 0) throw new Error("First element in range is '||'");
    groups.push([]);
  });
  if (parts[parts.length - 1] === "||") throw new Error("Last element in range is '||'");
  const alternatives = groups.map((group) =>
    group.flatMap(expandWildcard).map((part) => {
      const [op, v] = splitComparator(part);
      const test = COMPARATORS[op];
      if (test === undefined) throw new Error(`Could not parse comparator "${op}" in "${part}"`);
      let bound: Version;
      try {
        bound = parseSemver(v);
      } catch (thrown) {
        throw new Error(`Could not parse Range "${part}": ${thrown instanceof Error ? thrown.message : ""}`);
      }
      return (version: Version) => test(compareSemver(version, bound));
    }),
  );
  return (v) => alternatives.some((all) => all.every((t) => t(v)));
}

/** Parses a version, or returns undefined when it is not a strict semantic version. */
export function tryParseSemver(s: string): Version | undefined {
  try {
    return parseSemver(s);
  } catch {
    return undefined;
  }
}
