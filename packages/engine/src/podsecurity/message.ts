import type { PssCheckResult, PssFinding } from "./types.js";

/** Fields whose value is a list: upstream prints their forbidden values as a Go slice (`[A B]`). */
const LIST_FIELD = /(capabilities\.(add|drop)|sysctls\[\*\]\.name|hostPort)$/;

/** One field error of a finding, as Kyverno's Pod Security fork words it. */
function fieldError(f: PssFinding): string {
  const field = f.field ?? f.restrictedField;
  if (f.values.length === 0) return `${field}: Required value`;
  const list = f.values.length > 1 || LIST_FIELD.test(f.restrictedField);
  const values = list ? `[${f.values.join(" ")}]` : (f.values[0] as string);
  return `${field} is forbidden, forbidden values found: ${values}`;
}

/** `(Forbidden reason: <reason>, field error list: [<field errors>])` for one failed check. */
function checkText(check: PssCheckResult): string {
  return `(Forbidden reason: ${check.forbiddenReason}, field error list: [${check.findings.map(fieldError).join(", ")}])`;
}

/**
 * Builds Kyverno's failure message for a podSecurity rule from the failures:
 * `It violates PodSecurity "restricted:latest": (Forbidden reason: runAsNonRoot != true, field error
 * list: [spec.containers[0].securityContext.runAsNonRoot: Required value])(…)`, the checks one after the
 * other, each naming the fields that failed it. With `rule`, the full rule message
 * `Validation rule '<rule>' failed. It violates …` that Kyverno reports.
 */
export function podSecurityMessage(
  level: string,
  version: string,
  failures: readonly PssCheckResult[],
  rule?: string,
): string {
  const body = `It violates PodSecurity "${level}:${version}": ${failures.map(checkText).join("")}`;
  return rule === undefined ? body : `Validation rule '${rule}' failed. ${body}`;
}
