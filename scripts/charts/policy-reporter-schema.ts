/** Where the Policy Reporter chart lives, relative to the repository root. */
export const POLICY_REPORTER_CHART = "charts/policy-reporter";
/** placeholder */
export function policyReporterSchema(): Record<string, unknown> {
  return { type: "object" };
}
