import type { JsonValue, PodSecurityExclude, Validation } from "@kyverno-ts/api";
import { parseImage } from "../images/images.js";
import { evaluatePodSecurity, podOf, podSecurityMessage } from "../podsecurity/index.js";
import type { PssCheckResult } from "../podsecurity/types.js";
import { passMessage } from "../response/messages.js";
import type { Outcome } from "./validate-rule.js";

/** `container "a" must`, `containers "a", "b" must`: the names a check's detail gives before `must`. */
const CONTAINERS_IN_DETAIL = /containers? ((?:"[^"]*"(?:, )?)+) must/g;

/**
 * The images of the containers a failed check's detail names, as upstream's `addImages` finds them (the
 * container names in the forbidden detail, each as its image reference: `docker.io/nginx:1.27`); null
 * when the detail names no container (a pod-level check such as `hostNamespaces`).
 */
function imagesOf(check: PssCheckResult, podSpec: JsonValue): string[] | null {
  const names = [...check.forbiddenDetail.matchAll(CONTAINERS_IN_DETAIL)].flatMap((m) =>
    [...(m[1] ?? "").matchAll(/"([^"]*)"/g)].map((q) => q[1] ?? ""),
  );
  if (names.length === 0) return null;
  const spec = podSpec !== null && typeof podSpec === "object" && !Array.isArray(podSpec) ? podSpec : {};
  const images = new Map<string, string>();
  for (const list of ["containers", "initContainers", "ephemeralContainers"]) {
    const containers = spec[list];
    if (!Array.isArray(containers)) continue;
    for (const c of containers) {
      if (c === null || typeof c !== "object" || Array.isArray(c) || typeof c.name !== "string") continue;
      const image = typeof c.image === "string" ? c.image : "";
      images.set(c.name, parseImage(image)?.reference ?? image);
    }
  }
  return [...new Set(names)].map((n) => images.get(n) ?? "");
}

/**
 * The report properties of a failed podSecurity rule, as upstream's `addPodSecurityProperties`:
 * `standard` (the level), `version`, `controls` (the IDs of the failed checks, sorted, comma-separated)
 * and `controlsJSON` (each failed check in evaluation order as a JSON object with Go's sorted keys:
 * `ID`, `Images` — see `imagesOf` — and `Name`, the check's forbidden reason).
 */
function podSecurityProperties(
  level: string,
  version: string,
  failures: readonly PssCheckResult[],
  podSpec: JsonValue,
): Record<string, string> {
  const controlsJSON = failures.map((f) => ({
    ID: f.id,
    Images: imagesOf(f, podSpec),
    Name: f.forbiddenReason,
  }));
  return {
    standard: level,
    version,
    controls: failures
      .map((f) => f.id)
      .sort()
      .join(","),
    controlsJSON: JSON.stringify(controlsJSON),
  };
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
    properties: podSecurityProperties(level, version, r.failures, pod.podSpec),
  };
}
