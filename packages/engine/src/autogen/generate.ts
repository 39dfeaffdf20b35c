import type {
  JsonObject,
  JsonValue,
  MatchResources,
  MutateForeach,
  ResourceFilter,
  Rule,
  Validation,
} from "@kyverno-ts/api";
import { containsKind } from "../match/index.js";
import { blockKinds } from "./controllers.js";
import { shiftReferences } from "./rewrite.js";

/** How a generated rule reaches the Pod inside its controller. */
export interface Shape {
  /** Key wrapped around patterns under `spec`: `template`, or `jobTemplate` for CronJob. */
  templateKey: string;
  /** Path inserted after the pivot of `$(…)` message references. */
  shift: string;
  /** Kinds the generated rule matches instead of `Pod`. */
  kinds: string[];
  /**
   * Rewrites the kinds of `any` / `all` filters. Pod controllers only replace filters that name `Pod`;
   * the CronJob rule, built from the controllers rule, sets every filter's kinds.
   */
  retarget: (filters: ResourceFilter[], kinds: string[]) => ResourceFilter[];
}

/** Replaces the kinds of filters that name `Pod`; others are kept as they are. */
export function retargetPodFilters(filters: ResourceFilter[], kinds: string[]): ResourceFilter[] {
  return filters.map((f) => (containsKind(f.resources?.kinds ?? [], "Pod") ? withKinds(f, kinds) : f));
}

/** Sets the kinds of every filter. */
export function retargetAllFilters(filters: ResourceFilter[], kinds: string[]): ResourceFilter[] {
  return filters.map((f) => withKinds(f, kinds));
}

function withKinds(f: ResourceFilter, kinds: string[]): ResourceFilter {
  return { ...f, resources: { ...f.resources, kinds } };
}

/** True for the rules autogen itself produces (and never expands again). */
export function isAutogenRuleName(name: string): boolean {
  return name.startsWith("autogen-");
}

/** `<prefix>-<name>` cut to the 63 characters Kubernetes allows a rule name, as upstream. */
export function autogenRuleName(prefix: string, name: string): string {
  return `${prefix}-${name}`.slice(0, 63);
}

/**
 * Whether a rule can be expanded on its own: it is not itself generated, it matches `Pod`, and its
 * exclude (when it names kinds) names `Pod` too.
 */
export function expandsRule(rule: Rule): boolean {
  if (isAutogenRuleName(rule.name)) return false;
  if (!containsKind(blockKinds(rule.match), "Pod")) return false;
  const excludeKinds = blockKinds(rule.exclude);
  return excludeKinds.length === 0 || containsKind(excludeKinds, "Pod");
}

/**
 * Builds the rule for one controller shape: kinds retargeted, and the rule body moved into the Pod
 * template. Returns undefined for rule types autogen does not cover (upstream's order of checks:
 * mutate patchStrategicMerge, mutate foreach, validate pattern, deny, podSecurity, anyPattern, foreach,
 * then verifyImages and validate.cel, which are copied unchanged). Paths in strings are rewritten later.
 */
export function generateRule(name: string, rule: Rule, shape: Shape): Rule | undefined {
  const body = wrapBody(rule, shape);
  if (body === undefined) return undefined;
  const out: Rule = { ...rule, ...body, name, match: retargetBlock(rule.match, shape, true) };
  if (rule.exclude !== undefined) out.exclude = retargetBlock(rule.exclude, shape, false);
  return out;
}

function retargetBlock(block: MatchResources, shape: Shape, isMatch: boolean): MatchResources {
  if (block.any !== undefined && block.any.length > 0) {
    return { ...block, any: shape.retarget(block.any, shape.kinds) };
  }
  if (block.all !== undefined && block.all.length > 0) {
    return { ...block, all: shape.retarget(block.all, shape.kinds) };
  }
  // Legacy form: a match always takes the kinds, an exclude only when it names kinds.
  if (isMatch || (block.resources?.kinds ?? []).length > 0) {
    return { ...block, resources: { ...block.resources, kinds: shape.kinds } };
  }
  return block;
}

function wrapBody(rule: Rule, shape: Shape): Pick<Rule, "mutate" | "validate"> | undefined {
  const wrap = (v: JsonValue): JsonObject => ({ spec: { [shape.templateKey]: v } });
  const mutate = rule.mutate;
  if (mutate !== undefined) {
    const psm = mutate.patchStrategicMerge;
    if (psm !== undefined && psm !== null) return { mutate: { ...mutate, patchStrategicMerge: wrap(psm) } };
    const foreach = mutate.foreach;
    if (Array.isArray(foreach) && foreach.length > 0) {
      return { mutate: { ...mutate, foreach: foreach.map((f) => wrapForeachPatch(f, wrap)) } };
    }
  }
  const v = rule.validate;
  if (v === undefined) return rule.verifyImages !== undefined ? {} : undefined;
  const message = (pivot: string): Pick<Validation, "message"> =>
    v.message === undefined ? {} : { message: shiftReferences(v.message, shape.shift, pivot) };
  if (v.pattern !== undefined && v.pattern !== null) {
    return { validate: { ...v, ...message("pattern"), pattern: wrap(v.pattern) } };
  }
  if (v.deny !== undefined) return { validate: { ...v, ...message("deny") } };
  if (v.podSecurity !== undefined) return { validate: { ...v, ...message("podSecurity") } };
  if (v.anyPattern !== undefined) {
    return { validate: { ...v, ...message("anyPattern"), anyPattern: v.anyPattern.map(wrap) } };
  }
  if ((v.foreach ?? []).length > 0 || rule.verifyImages !== undefined || v.cel !== undefined) return {};
  return undefined;
}

/** A mutate foreach entry's strategic-merge patch applies to the whole resource, so it is wrapped too. */
function wrapForeachPatch(entry: MutateForeach, wrap: (v: JsonValue) => JsonObject): MutateForeach {
  const psm = entry.patchStrategicMerge;
  if (psm === undefined || psm === null) return entry;
  return { ...entry, patchStrategicMerge: wrap(psm) };
}
