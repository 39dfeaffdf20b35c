import type { PodSecurityExclude } from "@kyverno-ts/api";
import { matchWildcard } from "../wildcard/wildcard.js";
import { CONTROL_CHECK_IDS } from "./checks.js";
import type { PssFinding } from "./types.js";

/** An exclude entry with its control resolved to check IDs, ready to test findings against. */
export interface CompiledExclude {
  checkIds: ReadonlySet<string>;
  images: readonly string[];
  restrictedField: string;
  values: readonly string[];
}

/** Resolves each entry's `controlName`; an unknown control name is an error string. */
export function compileExcludes(excludes: readonly PodSecurityExclude[]): CompiledExclude[] | string {
  const compiled: CompiledExclude[] = [];
  for (const e of excludes) {
    const ids = CONTROL_CHECK_IDS.get(e.controlName);
    if (ids === undefined)
      return `invalid podSecurity exclude: unknown controlName ${JSON.stringify(e.controlName)}`;
    compiled.push({
      checkIds: new Set(ids),
      images: e.images ?? [],
      restrictedField: e.restrictedField ?? "",
      values: e.values ?? [],
    });
  }
  return compiled;
}

/**
 * Kyverno's exemption of one finding by one entry: the entry names the finding's control; without
 * `images` it covers pod-level findings only, with `images` only findings of containers whose image
 * matches one of the wildcards; `restrictedField`, when set, must equal the finding's field; `values`,
 * when set, must contain every offending value (so a missing required field is never value-exempted).
 */
export function isExcluded(exclude: CompiledExclude, checkId: string, finding: PssFinding): boolean {
  if (!exclude.checkIds.has(checkId)) return false;
  if (exclude.images.length === 0) {
    if (finding.container !== undefined) return false;
  } else {
    const image = finding.container?.image;
    if (image === undefined || !exclude.images.some((pattern) => matchWildcard(pattern, image))) return false;
  }
  if (exclude.restrictedField !== "" && exclude.restrictedField !== finding.restrictedField) return false;
  if (exclude.values.length > 0) {
    if (finding.values.length === 0 || !finding.values.every((v) => exclude.values.includes(v))) return false;
  }
  return true;
}
