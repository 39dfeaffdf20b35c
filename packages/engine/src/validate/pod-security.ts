import type { JsonValue, PodSecurityExclude, Validation } from "@kyverno-ts/api";
import { evaluatePodSecurity, podOf, podSecurityMessage } from "../podsecurity/index.js";
import { passMessage } from "../response/messages.js";
import type { Outcome } from "./validate-rule.js";

/**
 * The report properties of a failed podSecurity rule, as upstream's `addPodSecurityProperties`:
 * `standard` (the level), `version` and `controls` (the IDs of the failed checks, sorted, comma-separated).
 */
function podSecurityProperties(level: string, version: string, failedIds: readonly string[]) {
  return { standard: level, version, controls: [...failedIds].sort().join(",") };
}

/**
 * Evaluates a `validate.podSecurity` rule: the Pod Security Standards checks of the level and
 * version on the pod (or pod template) of the resource, minus the rule's and any matching
 * PolicyException's exclusions.
 */
export function podSecurityOutcome(
  ruleName: string,
  podSecurity: NonNullable<Validation["podSecurity"]>,
  resource: JsonValue,
  exclude: readonly PodSecurityExclude[],
): Outcome & { properties?: Record<string, string> } {
  const pod = podOf(resource);
  if (!pod)
    return {
      status: "error",
      message: `rule ${ruleName}: podSecurity applies to Pods and pod controllers only`,
    };
  const version = podSecurity.version ?? "latest";
  const r = evaluatePodSecurity({
    level: podSecurity.level ?? "baseline",
    version,
    exclude: [...exclude],
    podMetadata: pod.podMetadata,
    podSpec: pod.podSpec,
  });
  if (!r.ok) return { status: "error", message: `rule ${ruleName}: ${r.error}` };
  if (r.allowed) return { status: "pass", message: passMessage(ruleName) };
  const level = podSecurity.level ?? "baseline";
  return {
    status: "fail",
    message: podSecurityMessage(level, version, r.failures, ruleName),
    properties: podSecurityProperties(
      level,
      version,
      r.failures.map((f) => f.id),
    ),
  };
}
