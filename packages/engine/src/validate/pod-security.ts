import type { JsonValue, PodSecurityExclude, Validation } from "@kyverno-ts/api";
import { evaluatePodSecurity, podOf, podSecurityMessage } from "../podsecurity/index.js";
import { passMessage } from "../response/messages.js";
import type { Outcome } from "./validate-rule.js";

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
): Outcome {
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
  return {
    status: "fail",
    message: podSecurityMessage(podSecurity.level ?? "baseline", version, r.failures, ruleName),
  };
}
