import { CHECKS, checkAt } from "./checks.js";
import { compileExcludes, isExcluded } from "./exclude.js";
import { parseLevelVersion } from "./level.js";
import { readPod } from "./pod-view.js";
import type { PodSecurityEvaluation, PodSecurityInput, PssCheckResult } from "./types.js";

/**
 * Evaluates a pod against a Pod Security Standards level and version, as Kyverno's `validate.podSecurity`
 * does: every check of the level (restricted includes baseline; privileged has none) runs in the
 * implementation in force at the version, and a failing check is dropped when `exclude` exempts every one
 * of its findings. Pure and synchronous; an invalid level, version or control name is `{ ok: false }`.
 * Use `podOf` first to get the pod out of a controller, and `podSecurityMessage` to word a failure.
 */
export function evaluatePodSecurity(input: PodSecurityInput): PodSecurityEvaluation {
  const lv = parseLevelVersion(input.level, input.version);
  if (typeof lv === "string") return { ok: false, error: lv };
  const excludes = compileExcludes(input.exclude ?? []);
  if (typeof excludes === "string") return { ok: false, error: excludes };
  if (lv.level === "privileged") return { ok: true, allowed: true, failures: [] };

  const pod = readPod(input.podMetadata, input.podSpec);
  const failures: PssCheckResult[] = [];
  for (const check of CHECKS) {
    if (lv.level === "baseline" && check.level !== "baseline") continue;
    const outcome = checkAt(check, lv.minor)?.run(pod);
    if (outcome === undefined) continue;
    const findings = outcome.findings.filter((f) => !excludes.some((e) => isExcluded(e, check.id, f)));
    if (findings.length === 0) continue;
    failures.push({
      id: check.id,
      controlName: check.controlName,
      forbiddenReason: outcome.forbiddenReason,
      forbiddenDetail: outcome.forbiddenDetail,
      findings,
    });
  }
  return { ok: true, allowed: failures.length === 0, failures };
}
