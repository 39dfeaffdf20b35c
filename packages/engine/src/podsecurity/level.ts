import type { PssLevel } from "./types.js";

/** Parsed `level` and `version` of a podSecurity rule; `minor` is `Infinity` for `latest`. */
export interface LevelVersion {
  level: PssLevel;
  minor: number;
}

/**
 * Parses the rule's `level` and `version` as upstream does: levels are exact lowercase names, versions
 * `latest` (also the default when empty) or `v1.N`. Returns an error string otherwise.
 */
export function parseLevelVersion(level: string, version: string | undefined): LevelVersion | string {
  if (level !== "privileged" && level !== "baseline" && level !== "restricted") {
    return `invalid podSecurity level ${JSON.stringify(level)}: must be one of privileged, baseline, restricted`;
  }
  if (version === undefined || version === "" || version === "latest") return { level, minor: Infinity };
  const match = /^v1\.(0|[1-9][0-9]*)$/.exec(version);
  if (match?.[1] === undefined) {
    return `invalid podSecurity version ${JSON.stringify(version)}: must be "latest" or "v1.<minor>"`;
  }
  return { level, minor: Number(match[1]) };
}
