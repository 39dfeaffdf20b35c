/**
 * Strict semantic versions (`1.2.3`, `1.2.3-rc.1+build`) as blang/semver's `Parse` accepts them, and
 * their precedence order; used by the numeric operators when a key is neither number nor quantity.
 */

/** A parsed semantic version; build metadata is ignored for ordering and not kept. */
export interface SemVer {
  readonly core: readonly [bigint, bigint, bigint];
  readonly prerelease: readonly string[];
}

const NUMERIC = /^(?:0|[1-9]\d*)$/;
const IDENTIFIER = /^[0-9A-Za-z-]+$/;
const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([^+]+))?(?:\+(.+))?$/;

/** Parses `major.minor.patch[-pre][+build]` strictly (no `v` prefix, no leading zeros), else `undefined`. */
export function parseSemver(s: string): SemVer | undefined {
  const match = SEMVER.exec(s);
  if (match === null) return undefined;
  const prerelease = match[4] === undefined ? [] : match[4].split(".");
  for (const id of prerelease) {
    if (!IDENTIFIER.test(id)) return undefined;
    if (/^\d+$/.test(id) && !NUMERIC.test(id)) return undefined;
  }
  const build = match[5] === undefined ? [] : match[5].split(".");
  if (!build.every((id) => IDENTIFIER.test(id))) return undefined;
  return { core: [BigInt(match[1] ?? "0"), BigInt(match[2] ?? "0"), BigInt(match[3] ?? "0")], prerelease };
}

/** Semver precedence: -1, 0 or 1 as `a` is lower than, equal to or higher than `b`. */
export function compareSemver(a: SemVer, b: SemVer): -1 | 0 | 1 {
  for (let i = 0; i < 3; i++) {
    const x = a.core[i] ?? 0n;
    const y = b.core[i] ?? 0n;
    if (x !== y) return x < y ? -1 : 1;
  }
  if (a.prerelease.length === 0 || b.prerelease.length === 0) {
    return a.prerelease.length === b.prerelease.length ? 0 : a.prerelease.length === 0 ? 1 : -1;
  }
  const n = Math.min(a.prerelease.length, b.prerelease.length);
  for (let i = 0; i < n; i++) {
    const c = compareIdentifier(a.prerelease[i] ?? "", b.prerelease[i] ?? "");
    if (c !== 0) return c;
  }
  return a.prerelease.length === b.prerelease.length ? 0 : a.prerelease.length < b.prerelease.length ? -1 : 1;
}

function compareIdentifier(a: string, b: string): -1 | 0 | 1 {
  const an = NUMERIC.test(a);
  const bn = NUMERIC.test(b);
  if (an && bn) {
    const x = BigInt(a);
    const y = BigInt(b);
    return x === y ? 0 : x < y ? -1 : 1;
  }
  if (an !== bn) return an ? -1 : 1;
  return a === b ? 0 : a < b ? -1 : 1;
}
