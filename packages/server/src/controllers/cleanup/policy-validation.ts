/**
 * Validation of CleanupPolicy / ClusterCleanupPolicy, as upstream's cleanup controller webhook runs
 * it before a policy is stored: the schedule must parse as upstream's cron; match / exclude,
 * context and conditions are checked by the same policy loader and engine compile as ClusterPolicies
 * (paths mapped back to the cleanup policy's); subjects, roles and cluster roles are refused (they
 * are known only at admission time); a namespaced CleanupPolicy may not filter namespaces nor name
 * cluster-scoped kinds; and the controller must be allowed to list and delete every kind it names.
 * Every problem names its field path.
 */
import { builtinScopeOf, type JsonValue, type KubeObject, loadPolicy } from "@kyverno-ts/api";
import type { Engine } from "@kyverno-ts/engine";
import { type CleanupPolicySpec, cleanupPath, matchedKinds, syntheticPolicy } from "./cleanup-policy.js";
import { parseSchedule } from "./schedule.js";

/** Whether the controller may do `verb` on `kind` in `namespace` (`""`: all); an error text when unknown. */
export type PermissionCheck = (
  kind: string,
  namespace: string,
  verb: "list" | "delete",
) => Promise<boolean | { error: string }>;

/** Options of `validateCleanupPolicy`. */
export interface CleanupValidationOptions {
  engine: Pick<Engine, "compile">;
  /** The controller's own permissions; not checked when omitted. */
  can?: PermissionCheck;
}

const USER_INFO = ["subjects", "roles", "clusterRoles"] as const;

/** Structural problems of match / exclude the policy loader does not know about. */
function blockProblems(spec: CleanupPolicySpec, namespaced: boolean): string[] {
  const problems: string[] = [];
  for (const block of ["match", "exclude"] as const) {
    const value = spec[block] as Record<string, unknown> | undefined;
    if (value === undefined) continue;
    if (Array.isArray(value.any) && Array.isArray(value.all) && value.any.length > 0 && value.all.length > 0)
      problems.push(`spec.${block}: Invalid value: Can't specify any and all together`);
    for (const list of ["any", "all"] as const) {
      const filters = Array.isArray(value[list]) ? (value[list] as Record<string, unknown>[]) : [];
      for (const [i, filter] of filters.entries()) {
        const base = `spec.${block}.${list}[${i}]`;
        for (const field of USER_INFO)
          if (filter[field] !== undefined)
            problems.push(
              `${base}.${field}: Forbidden: cleanup policies run on a schedule and cannot select ${field} (known only at admission time)`,
            );
        const resources = filter.resources as { kinds?: unknown } | undefined;
        if (namespaced && Array.isArray(resources?.kinds))
          for (const [k, kind] of resources.kinds.entries())
            if (typeof kind === "string" && builtinScopeOf("", kind) === "cluster")
              problems.push(
                `${base}.resources.kinds[${k}]: Forbidden: cluster-scoped kind ${kind} not allowed in a namespaced CleanupPolicy`,
              );
      }
    }
  }
  if (matchedKinds(spec).length === 0 && spec.match !== undefined)
    problems.push("spec.match: Required value: at least one kind in resources.kinds");
  return problems;
}

/** Problems of the controller's permissions on the kinds the policy names (upstream's wording). */
async function permissionProblems(
  can: PermissionCheck,
  kinds: readonly string[],
  namespace: string,
): Promise<string[]> {
  const problems: string[] = [];
  for (const kind of kinds) {
    if (kind.includes("*")) continue;
    for (const verb of ["list", "delete"] as const) {
      const allowed = await can(kind, namespace, verb);
      if (typeof allowed === "object")
        problems.push(`spec.match: cannot check permissions: ${allowed.error}`);
      else if (!allowed) problems.push(`cleanup controller has no permission to ${verb} kind ${kind}`);
    }
  }
  return problems;
}

/**
 * Every problem of a cleanup policy, each naming its field path; empty when the policy is valid.
 * Never throws for user input.
 */
export async function validateCleanupPolicy(
  policy: KubeObject,
  options: CleanupValidationOptions,
): Promise<string[]> {
  const spec = (policy.spec ?? {}) as CleanupPolicySpec;
  const namespaced = policy.kind === "CleanupPolicy";
  const problems: string[] = [];
  const schedule = spec.schedule;
  if (typeof schedule !== "string" || schedule === "") problems.push("spec.schedule: Required value");
  else if (!parseSchedule(schedule).ok)
    problems.push(
      `spec.schedule: Invalid value: ${JSON.stringify(schedule)}: schedule spec in the cleanupPolicy is not in proper cron format`,
    );
  if (spec.match === undefined) problems.push("spec.match: Required value");
  problems.push(...blockProblems(spec, namespaced));
  const propagation = spec.deletionPropagationPolicy;
  if (propagation !== undefined && !["Foreground", "Background", "Orphan"].includes(propagation))
    problems.push(
      `spec.deletionPropagationPolicy: Unsupported value: ${JSON.stringify(propagation)}: supported values: "Foreground", "Background", "Orphan"`,
    );
  const where = { file: `${policy.kind}/${policy.metadata?.name ?? ""}` };
  const loaded = loadPolicy(syntheticPolicy(policy) as JsonValue, where);
  if (!loaded.ok)
    for (const e of loaded.errors) problems.push(`${cleanupPath(e.path) || "spec"}: ${e.message}`);
  else {
    const compiled = options.engine.compile(loaded.value);
    if (!compiled.ok)
      for (const issue of compiled.issues)
        problems.push(`${cleanupPath(issue.path) || "spec"}: ${issue.message}`);
  }
  if (problems.length === 0 && options.can !== undefined)
    problems.push(
      ...(await permissionProblems(options.can, matchedKinds(spec), policy.metadata?.namespace ?? "")),
    );
  return [...new Set(problems)];
}
