/**
 * Which answer of a resource each ephemeral report result is: the validating webhook's (the
 * default), the mutating webhook's, or the background controller's (generate, mutate existing). A
 * newer answer replaces the older results of the same policy and phase only, so a policy's mutate,
 * validate and generate results stand side by side. Kept in two annotations of the ephemeral report
 * (it is ours: the reports controller reads it and deletes it); validated policies stay in
 * `kyverno-ts.io/evaluated-policies` as before.
 */
import type { PolicyReportResult } from "@kyverno-ts/api";
import type { AdmissionPhase } from "../controllers/admission/results.js";

/** Annotations of the phases other than validate. */
export const PHASE_ANNOTATIONS = {
  /** JSON list of the policies the validating webhook evaluated (a policy may answer with no result). */
  validated: "kyverno-ts.io/evaluated-policies",
  /** JSON object: phase → the policies evaluated in it, for the phases other than validate. */
  policies: "kyverno-ts.io/phase-policies",
  /** JSON list of `[policy, rule, phase]` of the results of the phases other than validate. */
  results: "kyverno-ts.io/phase-results",
} as const;

const PHASES: ReadonlySet<string> = new Set<AdmissionPhase>([
  "validate",
  "mutate",
  "generate",
  "mutateExisting",
]);
const isPhase = (p: unknown): p is AdmissionPhase => typeof p === "string" && PHASES.has(p);

type Annotated = { metadata: { annotations?: Record<string, string> | undefined } };

function parsed(report: Annotated, key: string): unknown {
  try {
    return JSON.parse(report.metadata.annotations?.[key] ?? "null");
  } catch {
    return null;
  }
}

const rowKey = (policy: string, rule: string | undefined): string => `${policy}\u0000${rule ?? ""}`;

/** The phase of each result of a report that is not the validating webhook's, by `policy\0rule`. */
export function rowPhases(report: Annotated): Map<string, AdmissionPhase> {
  const out = new Map<string, AdmissionPhase>();
  const listed = parsed(report, PHASE_ANNOTATIONS.results);
  if (!Array.isArray(listed)) return out;
  for (const row of listed)
    if (Array.isArray(row) && typeof row[0] === "string" && typeof row[1] === "string" && isPhase(row[2]))
      out.set(rowKey(row[0], row[1]), row[2]);
  return out;
}

/** The phase a result belongs to (`rows` from `rowPhases`). */
export function phaseOf(rows: ReadonlyMap<string, AdmissionPhase>, r: PolicyReportResult): AdmissionPhase {
  return rows.get(rowKey(r.policy, r.rule)) ?? "validate";
}

/** The policies each phase evaluated, by what the report says and the results it holds. */
export function policiesByPhase(
  report: Annotated & { spec: { results: PolicyReportResult[] } },
): Map<AdmissionPhase, Set<string>> {
  const out = new Map<AdmissionPhase, Set<string>>();
  const add = (phase: AdmissionPhase, policy: string) => {
    const set = out.get(phase) ?? new Set<string>();
    set.add(policy);
    out.set(phase, set);
  };
  const validated = parsed(report, PHASE_ANNOTATIONS.validated);
  if (Array.isArray(validated)) for (const p of validated) if (typeof p === "string") add("validate", p);
  const others = parsed(report, PHASE_ANNOTATIONS.policies);
  if (others !== null && typeof others === "object" && !Array.isArray(others))
    for (const [phase, list] of Object.entries(others))
      if (isPhase(phase) && Array.isArray(list))
        for (const p of list) if (typeof p === "string") add(phase, p);
  const rows = rowPhases(report);
  for (const r of report.spec.results) add(phaseOf(rows, r), r.policy);
  return out;
}

/** The annotations that record `byPhase` and the phase of each of `rows`. */
export function phaseAnnotations(
  byPhase: ReadonlyMap<AdmissionPhase, ReadonlySet<string>>,
  rows: ReadonlyArray<readonly [PolicyReportResult, AdmissionPhase]>,
): Record<string, string> {
  const sorted = (phase: AdmissionPhase) => [...(byPhase.get(phase) ?? [])].sort();
  const out: Record<string, string> = { [PHASE_ANNOTATIONS.validated]: JSON.stringify(sorted("validate")) };
  const others: Record<string, string[]> = {};
  for (const phase of byPhase.keys()) if (phase !== "validate") others[phase] = sorted(phase);
  const phased = rows.filter(([, phase]) => phase !== "validate");
  if (Object.keys(others).length > 0) out[PHASE_ANNOTATIONS.policies] = JSON.stringify(others);
  if (phased.length > 0)
    out[PHASE_ANNOTATIONS.results] = JSON.stringify(
      phased.map(([r, phase]) => [r.policy, r.rule ?? "", phase]),
    );
  return out;
}

/**
 * Merges the results of a newer report into an older one's: the newer answer of each policy and
 * phase wins. Answers the results and the annotations recording their phases.
 */
export function mergePhased(
  older: Annotated & { spec: { results: PolicyReportResult[] } },
  newer: Annotated & { spec: { results: PolicyReportResult[] } },
): { results: PolicyReportResult[]; annotations: Record<string, string> } {
  const answered = policiesByPhase(newer);
  const olderRows = rowPhases(older);
  const newerRows = rowPhases(newer);
  const kept = older.spec.results.filter((r) => !answered.get(phaseOf(olderRows, r))?.has(r.policy));
  const rows: Array<readonly [PolicyReportResult, AdmissionPhase]> = [
    ...kept.map((r) => [r, phaseOf(olderRows, r)] as const),
    ...newer.spec.results.map((r) => [r, phaseOf(newerRows, r)] as const),
  ];
  const byPhase = policiesByPhase(older);
  for (const [phase, policies] of answered) {
    const set = byPhase.get(phase) ?? new Set<string>();
    for (const p of policies) set.add(p);
    byPhase.set(phase, set);
  }
  return { results: rows.map(([r]) => r), annotations: phaseAnnotations(byPhase, rows) };
}
