import type { PssCheckResult } from "./types.js";

/**
 * Builds Kyverno's failure message for a podSecurity rule from the failures:
 * `It violates PodSecurity "restricted:latest": ({Allowed:false ForbiddenReason:… ForbiddenDetail:…})`,
 * one parenthesised check per line. With `rule`, the full rule message
 * `Validation rule '<rule>' failed. It violates …` that Kyverno reports.
 */
export function podSecurityMessage(
  level: string,
  version: string,
  failures: readonly PssCheckResult[],
  rule?: string,
): string {
  const checks = failures
    .map((f) => `({Allowed:false ForbiddenReason:${f.forbiddenReason} ForbiddenDetail:${f.forbiddenDetail}})`)
    .join("\n");
  const body = `It violates PodSecurity "${level}:${version}": ${checks}`;
  return rule === undefined ? body : `Validation rule '${rule}' failed. ${body}`;
}
