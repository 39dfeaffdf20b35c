/**
 * Upstream's `--enableReporting` (chart `features.reporting`): the rule types whose results reach
 * the reports. Validate results come from admission and background scans, mutate results from the
 * mutating webhook, generate and mutate-existing results from the background controller; a type left
 * out is not reported by any of them. `imageVerify` is accepted (image verification is not evaluated
 * yet, so it has no results to report).
 */
import type { AdmissionPhase, AdmissionResult } from "../controllers/admission/results.js";

/** The rule types `--enableReporting` names, in upstream's spelling. */
export const REPORTED_RULE_TYPES = [
  "validate",
  "mutate",
  "mutateExisting",
  "generate",
  "imageVerify",
] as const;

/** One of `REPORTED_RULE_TYPES`. */
export type ReportedRuleType = (typeof REPORTED_RULE_TYPES)[number];

/** The rule types reported. */
export type ReportingSettings = ReadonlySet<ReportedRuleType>;

/** Every rule type reported: upstream's default. */
export const REPORT_ALL: ReportingSettings = new Set(REPORTED_RULE_TYPES);

/**
 * Parses `--enableReporting` (comma-separated rule types; empty: nothing is reported). An unknown
 * type is an error naming the accepted ones.
 */
export function parseEnableReporting(
  value: string,
): { ok: true; settings: ReportingSettings } | { ok: false; message: string } {
  const types = new Set<ReportedRuleType>();
  for (const part of value.split(",")) {
    const type = part.trim();
    if (type === "") continue;
    if (!(REPORTED_RULE_TYPES as readonly string[]).includes(type))
      return {
        ok: false,
        message: `--enableReporting: unknown rule type "${type}" (accepted: ${REPORTED_RULE_TYPES.join(", ")})`,
      };
    types.add(type as ReportedRuleType);
  }
  return { ok: true, settings: types };
}

/** Whether the results of an admission or background phase are reported. */
export function reportsPhase(settings: ReportingSettings, phase: AdmissionPhase): boolean {
  return settings.has(phase);
}

/** A result filter for `createBoundedResultQueue`'s `accepts`: results of unreported phases are not kept. */
export function reportedResults(settings: ReportingSettings): (result: AdmissionResult) => boolean {
  return (result) => reportsPhase(settings, result.phase ?? "validate");
}
