import type { Policy } from "@kyverno-ts/api";
import type { PolicyResponse, RuleResponse } from "@kyverno-ts/engine";
import { Reasons } from "../output/messages.js";
import { reportResult } from "./report-result.js";

/** The fields of a `kyverno-test.yaml` result line that judging reads (deprecated spellings included). */
export interface ExpectedResult {
  policy: string;
  rule?: string;
  result?: string;
  /** Deprecated spelling of `result`. */
  status?: string;
  kind?: string;
  resources?: string[];
  /** Deprecated single-resource spelling of `resources`. */
  resource?: string;
  /** Deprecated namespace of `resource`. */
  namespace?: string;
  /** Alternative to `resources`: the resource by kind, namespace and name. */
  resourceSpec?: { kind?: string; namespace?: string; name?: string };
  patchedResources?: string;
  patchedResource?: string;
  generatedResource?: string;
  cloneSourceResource?: string;
  isValidatingAdmissionPolicy?: boolean;
  isValidatingPolicy?: boolean;
  isMutatingPolicy?: boolean;
  isMutatingAdmissionPolicy?: boolean;
  isImageValidatingPolicy?: boolean;
  isGeneratingPolicy?: boolean;
  isDeletingPolicy?: boolean;
}

/** One engine response together with the policy it came from. */
export interface Evaluated {
  policy: Policy;
  response: PolicyResponse;
}

/** Verdict for one (result line × resource): the unit `kyverno test` counts and prints. */
export interface LineOutcome {
  /** Path of the `kyverno-test.yaml`, as displayed. */
  test: string;
  policy: string;
  rule: string;
  /** The resource as written in the line (`name` or `ns/name`), or the response's when the line names none. */
  resource: string;
  kind: string;
  expected: string;
  /** The computed report result(s), comma-joined when several responses matched; or a marker such as `excluded`. */
  actual: string;
  ok: boolean;
  /** `Ok`, `Want X, got Y`, `Excluded`, `Not found`, or why the line could not be judged. */
  reason: string;
  /** Rule messages of the matched responses, for `--detailed-results`. */
  message: string;
}

/** Options of `judgeLine`. */
export interface JudgeOptions {
  /** Report Audit failures as `warn` (upstream's `test` never sets it; kept for symmetry with `apply`). */
  auditWarn?: boolean;
}

/** Returns the expected result of a line (`result`, else the deprecated `status`). */
export function expectedOf(line: ExpectedResult): string {
  return line.result ?? line.status ?? "";
}

/** Names a line's resources: `resources`, else the deprecated `resource` (with `namespace`), else `resourceSpec`. */
export function resourcesOf(line: ExpectedResult): string[] {
  if (line.resources && line.resources.length > 0) return line.resources;
  if (line.resource) return [line.namespace ? `${line.namespace}/${line.resource}` : line.resource];
  const spec = line.resourceSpec;
  if (spec?.name) return [spec.namespace ? `${spec.namespace}/${spec.name}` : spec.name];
  return [];
}

/** The kind a line filters on: `kind`, else `resourceSpec.kind`; empty for any kind. */
export function kindOf(line: ExpectedResult): string {
  return line.kind ?? line.resourceSpec?.kind ?? "";
}

/** Why a line cannot be judged by this version, or undefined when it can. */
export function unsupportedReason(line: ExpectedResult): string | undefined {
  if (line.patchedResources || line.patchedResource || line.generatedResource || line.cloneSourceResource) {
    return Reasons.mutateGenerate;
  }
  if (
    line.isValidatingPolicy ||
    line.isMutatingPolicy ||
    line.isGeneratingPolicy ||
    line.isImageValidatingPolicy ||
    line.isDeletingPolicy ||
    line.isValidatingAdmissionPolicy ||
    line.isMutatingAdmissionPolicy
  ) {
    return Reasons.celPolicy;
  }
  return undefined;
}

function policyMatches(name: string, policy: PolicyResponse["policy"]): boolean {
  if (policy.name === name) return true;
  return policy.namespace !== undefined && `${policy.namespace}/${policy.name}` === name;
}

function resourceMatches(name: string, response: PolicyResponse): boolean {
  const r = response.resource;
  return r.name === name || (r.namespace !== "" && `${r.namespace}/${r.name}` === name);
}

/** Rule responses answering a line's `rule`: the rule itself or its `autogen-` / `autogen-cronjob-` variants. */
export function lookupRules(rule: string, rules: readonly RuleResponse[]): RuleResponse[] {
  return rules.filter(
    (r) => r.name === rule || r.name === `autogen-${rule}` || r.name === `autogen-cronjob-${rule}`,
  );
}

/**
 * Judges one result line against the engine responses of its test, as upstream `kyverno test`:
 * responses are narrowed to the line's policy and kind, then, per named resource, to that resource
 * (`name` or `ns/name`). Each matching rule response's report result must equal the expected result.
 * A policy that responded for the resource without a matching rule counts as passing (`Excluded`);
 * no response at all fails (`Not found`). Lines that name no resource are judged on every response
 * of the policy. Returns one outcome per (line × resource).
 */
export function judgeLine(
  test: string,
  line: ExpectedResult,
  evaluated: readonly Evaluated[],
  options: JudgeOptions = {},
): LineOutcome[] {
  const expected = expectedOf(line);
  const rule = line.rule ?? "";
  const names = resourcesOf(line);
  const kind = kindOf(line);
  const base = { test, policy: line.policy, rule, kind, expected };
  const unsupported = unsupportedReason(line);
  if (unsupported !== undefined) {
    const targets = names.length > 0 ? names : [""];
    return targets.map((resource) => ({
      ...base,
      resource,
      actual: "unsupported",
      ok: false,
      reason: unsupported,
      message: unsupported,
    }));
  }
  const candidates = evaluated.filter(
    (e) =>
      policyMatches(line.policy, e.response.policy) && (kind === "" || kind === e.response.resource.kind),
  );
  if (names.length > 0) {
    return names.map((resource) => {
      const matching = candidates.filter((e) => resourceMatches(resource, e.response));
      return verdict({ ...base, resource }, matching, rule, expected, options);
    });
  }
  const outcomes: LineOutcome[] = [];
  for (const e of candidates) {
    if (lookupRules(rule, e.response.rules).length === 0) continue;
    const r = e.response.resource;
    const resource = r.namespace ? `${r.namespace}/${r.name}` : r.name;
    outcomes.push(verdict({ ...base, resource, kind: base.kind || r.kind }, [e], rule, expected, options));
  }
  if (outcomes.length === 0) outcomes.push(notFound({ ...base, resource: "" }));
  return outcomes;
}

type OutcomeBase = Pick<LineOutcome, "test" | "policy" | "rule" | "resource" | "kind" | "expected">;

function notFound(base: OutcomeBase): LineOutcome {
  return { ...base, actual: "not found", ok: false, reason: Reasons.notFound, message: Reasons.notFound };
}

function verdict(
  base: OutcomeBase,
  matching: readonly Evaluated[],
  rule: string,
  expected: string,
  options: JudgeOptions,
): LineOutcome {
  if (matching.length === 0) return notFound(base);
  const actuals: string[] = [];
  const messages: string[] = [];
  let failure: string | undefined;
  for (const e of matching) {
    for (const r of lookupRules(rule, e.response.rules)) {
      const actual = reportResult(e.policy, r, options.auditWarn ?? false);
      if (!actuals.includes(actual)) actuals.push(actual);
      if (r.message) messages.push(r.message);
      if (actual !== expected && failure === undefined) failure = Reasons.want(expected, actual);
    }
  }
  if (actuals.length === 0) {
    return { ...base, actual: "excluded", ok: true, reason: Reasons.excluded, message: Reasons.excluded };
  }
  return {
    ...base,
    actual: actuals.join(","),
    ok: failure === undefined,
    reason: failure ?? Reasons.ok,
    message: messages.join("; "),
  };
}
