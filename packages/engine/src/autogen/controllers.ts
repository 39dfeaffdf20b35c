import type { MatchResources, Policy, ResourceDescription, Rule } from "@kyverno-ts/api";
import { containsKind } from "../match/index.js";

/** Policy annotation choosing the autogen controllers: a comma list, `none`, or the legacy `all`. */
export const AUTOGEN_CONTROLLERS_ANNOTATION = "pod-policies.kyverno.io/autogen-controllers";

/** Upstream's default controllers, sorted as upstream lists them after reading its set. */
const DEFAULT_CONTROLLERS: readonly string[] = [
  "CronJob",
  "DaemonSet",
  "Deployment",
  "Job",
  "ReplicaSet",
  "ReplicationController",
  "StatefulSet",
];

const POD_AND_CONTROLLERS: ReadonlySet<string> = new Set([...DEFAULT_CONTROLLERS, "Pod"]);

/**
 * Controllers that autogen expands the policy's Pod rules to, sorted: the annotation's list, or the
 * default set (`DaemonSet`, `Deployment`, `Job`, `StatefulSet`, `ReplicaSet`, `ReplicationController`,
 * `CronJob`). Returns `[]` when the annotation is `none` or autogen cannot apply to the policy (see
 * `canAutogen`). Custom controllers from the annotation (e.g. `CloneSet`) are kept.
 */
export function autogenControllers(policy: Policy): string[] {
  if (!canAutogen(policy.spec.rules)) return [];
  const annotation = policy.metadata.annotations?.[AUTOGEN_CONTROLLERS_ANNOTATION];
  if (annotation === undefined) return [...DEFAULT_CONTROLLERS];
  const requested = annotation
    .split(",")
    .map((c) => c.trim())
    .filter((c) => c !== "");
  if (requested.length === 1 && requested[0] === "none") return [];
  const expanded = requested.flatMap((c) => (c === "all" ? DEFAULT_CONTROLLERS : [c]));
  return [...new Set(expanded)].sort();
}

/**
 * Whether autogen may apply to a policy, as upstream decides it for the whole policy: no rule generates
 * or uses a JSON patch, no match/exclude filter sets `name(s)`, `selector` or `annotations` or lists
 * `Pod` next to other kinds, and some filter names `Pod` or a Pod controller.
 */
export function canAutogen(rules: readonly Rule[]): boolean {
  let needed = false;
  for (const rule of rules) {
    if (hasGenerate(rule) || usesJsonPatch(rule)) return false;
    for (const rd of descriptions(rule.match, rule.exclude)) {
      if (!supportsAutogen(rd)) return false;
      needed ||= (rd.kinds ?? []).some((k) => POD_AND_CONTROLLERS.has(k));
    }
  }
  return needed;
}

function hasGenerate(rule: Rule): boolean {
  return rule.generate !== undefined && Object.keys(rule.generate).length > 0;
}

function usesJsonPatch(rule: Rule): boolean {
  const mutate = rule.mutate;
  if (mutate === undefined) return false;
  if (isNonEmptyString(mutate.patchesJson6902)) return true;
  const foreach = mutate.foreach;
  if (!Array.isArray(foreach)) return false;
  return foreach.some(
    (f) => f !== null && typeof f === "object" && !Array.isArray(f) && isNonEmptyString(f.patchesJson6902),
  );
}

function isNonEmptyString(v: unknown): boolean {
  return typeof v === "string" && v !== "";
}

/** Every resource description of a rule's match and exclude blocks, in all three forms. */
function descriptions(...blocks: Array<MatchResources | undefined>): ResourceDescription[] {
  const out: ResourceDescription[] = [];
  for (const block of blocks) {
    if (block === undefined) continue;
    for (const filter of [block, ...(block.any ?? []), ...(block.all ?? [])]) {
      if (filter.resources !== undefined) out.push(filter.resources);
    }
  }
  return out;
}

function supportsAutogen(rd: ResourceDescription): boolean {
  const kinds = rd.kinds ?? [];
  return (
    !rd.name &&
    (rd.names ?? []).length === 0 &&
    rd.selector === undefined &&
    rd.annotations === undefined &&
    !(kinds.length > 1 && containsKind(kinds, "Pod"))
  );
}

/** Kinds named anywhere in a match or exclude block. */
export function blockKinds(block: MatchResources | undefined): string[] {
  if (block === undefined) return [];
  return [block, ...(block.any ?? []), ...(block.all ?? [])].flatMap((f) => f.resources?.kinds ?? []);
}
