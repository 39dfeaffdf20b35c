import type { JsonValue, KubeObject, Policy } from "@kyverno-ts/api";
import type { CelEnginePolicy, PolicyResponse, RuleResponse } from "@kyverno-ts/engine";
import { withDefaultNamespace } from "../load/scope.js";
import { Reasons, TestMessages } from "../output/messages.js";
import { compareResources, withoutGenerateLabels } from "./compare.js";
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

/** The engine call a response comes from, in upstream's order of evaluation. */
export type Phase = "mutate" | "mutateExisting" | "validate" | "generate";

/** One engine response together with the policy and the resource it came from. */
export interface Evaluated {
  /** The policy: a kyverno.io ClusterPolicy / Policy, or a CEL policy kind. */
  policy: Policy | CelEnginePolicy;
  response: PolicyResponse;
  phase: Phase;
  /** The resource as loaded, before any mutation. */
  original: KubeObject;
  /** The resource the engine was given (patched by the mutate policies before this call). */
  resource: KubeObject;
}

/** Resources of a `patchedResources` / `generatedResource` file, or why it could not be read. */
export type ExpectedFile = { ok: true; value: KubeObject[] } | { ok: false; error: string };

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
  /** The resources of a line's `patchedResources` / `generatedResource` file, by the path written in the line. */
  files?: (path: string) => ExpectedFile;
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

/** One rule response to check for a line, with the object its resource files are compared with. */
interface Check {
  e: Evaluated;
  rule: RuleResponse;
  /** The resource after the rule: patched resource, patched target, or the resource itself. */
  subject: KubeObject;
}

function isObject(value: JsonValue | undefined): value is { [key: string]: JsonValue } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The resource a response is about, after the policy's mutations when it mutated. */
function subjectOf(e: Evaluated): KubeObject {
  const patched = e.response.patchedResource;
  return e.phase === "mutate" && isObject(patched) ? (patched as KubeObject) : e.resource;
}

function objectMatches(name: string, o: KubeObject): boolean {
  const n = o.metadata?.name ?? "";
  const ns = o.metadata?.namespace ?? "";
  return n === name || (ns !== "" && `${ns}/${n}` === name);
}

/** Checks of the mutate-existing targets a response patched, narrowed to a name and kind when given. */
function targetChecks(e: Evaluated, rule: string, name: string, kind: string): Check[] {
  const out: Check[] = [];
  if (e.phase !== "mutateExisting") return out;
  for (const r of lookupRules(rule, e.response.rules)) {
    for (const t of r.patchedTargets ?? []) {
      if (!isObject(t.patched)) continue;
      const patched = t.patched as KubeObject;
      if (name !== "" && !objectMatches(name, patched)) continue;
      if (kind !== "" && patched.kind !== kind) continue;
      out.push({ e, rule: r, subject: patched });
    }
  }
  return out;
}

/** Display form of an object: `ns/name` or `name`. */
function displayName(o: KubeObject): string {
  const ns = o.metadata?.namespace;
  return ns ? `${ns}/${o.metadata?.name ?? ""}` : (o.metadata?.name ?? "");
}

/**
 * Judges one result line against the engine responses of its test, as upstream `kyverno test`:
 * responses are narrowed to the line's policy and kind, then, per named resource, to that resource
 * (`name` or `ns/name`) — or to the mutate-existing targets of that name. Each matching rule
 * response's report result must equal the expected result; with `patchedResources` the resource
 * after the policy's mutations (or the patched target) must equal its entry in the file, and with
 * `generatedResource` the generated object must equal its entry, both compared after dropping
 * nulls and empty values (and Kyverno's generate labels); a line expecting `fail` is met when they
 * differ (upstream counts a failed check as success when a failure was expected). A policy that responded for the resource
 * without a matching rule counts as passing (`Excluded`); no response at all fails (`Not found`).
 * Lines that name no resource are judged on every response of the policy (and every patched
 * target). Returns one outcome per (line × resource).
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
  const ofPolicy = evaluated.filter((e) => policyMatches(line.policy, e.response.policy));
  const candidates = ofPolicy.filter((e) => kind === "" || kind === e.response.resource.kind);
  const rulesOf = (e: Evaluated): Check[] =>
    lookupRules(rule, e.response.rules).map((r) => ({ e, rule: r, subject: subjectOf(e) }));
  if (names.length > 0) {
    return names.map((resource) => {
      const matching = candidates.filter((e) => resourceMatches(resource, e.response));
      const checks = [
        ...matching.flatMap(rulesOf),
        ...ofPolicy.flatMap((e) => targetChecks(e, rule, resource, kind)),
      ];
      if (matching.length === 0 && checks.length === 0) return notFound({ ...base, resource });
      return verdict({ ...base, resource }, line, checks, options);
    });
  }
  const outcomes: LineOutcome[] = [];
  for (const e of candidates) {
    const checks = rulesOf(e);
    if (checks.length === 0) continue;
    const r = e.response.resource;
    const resource = r.namespace ? `${r.namespace}/${r.name}` : r.name;
    outcomes.push(verdict({ ...base, resource, kind: base.kind || r.kind }, line, checks, options));
  }
  for (const e of ofPolicy) {
    for (const check of targetChecks(e, rule, "", kind)) {
      const resource = displayName(check.subject);
      const k = base.kind || (check.subject.kind ?? "");
      outcomes.push(verdict({ ...base, resource, kind: k }, line, [check], options));
    }
  }
  if (outcomes.length === 0) outcomes.push(notFound({ ...base, resource: "" }));
  return outcomes;
}

type OutcomeBase = Pick<LineOutcome, "test" | "policy" | "rule" | "resource" | "kind" | "expected">;

function notFound(base: OutcomeBase): LineOutcome {
  return { ...base, actual: "not found", ok: false, reason: Reasons.notFound, message: Reasons.notFound };
}

/** Finds an object's entry in an expected-resources file: same kind, name and namespace. */
function findExpected(objects: readonly KubeObject[], actual: KubeObject): KubeObject | undefined {
  const a = withDefaultNamespace(actual);
  return objects.find(
    (o) =>
      o.kind === a.kind &&
      (o.metadata?.name ?? "") === (a.metadata?.name ?? "") &&
      (o.metadata?.namespace ?? "") === (a.metadata?.namespace ?? ""),
  );
}

/**
 * As upstream reads a patched-resources file holding a single resource: that resource is the
 * expected one whatever its name, compared under the actual resource's name and namespace.
 */
function onlyOfKind(objects: readonly KubeObject[], actual: KubeObject): KubeObject | undefined {
  const [only, ...rest] = objects;
  if (only === undefined || rest.length > 0 || only.kind !== actual.kind) return undefined;
  const a = withDefaultNamespace(actual);
  const metadata = { ...(only.metadata ?? {}), name: a.metadata?.name ?? "" };
  if (a.metadata?.namespace !== undefined) metadata.namespace = a.metadata.namespace;
  return { ...only, metadata };
}

/** A failed resource comparison: the reason and the message, or undefined when the resources match. */
type ResourceVerdict = { reason: string; message: string } | undefined;

function readExpected(path: string, options: JudgeOptions): ExpectedFile {
  return options.files ? options.files(path) : { ok: false, error: TestMessages.noFileReader(path) };
}

function checkPatched(path: string, subject: KubeObject, options: JudgeOptions): ResourceVerdict {
  const file = readExpected(path, options);
  if (!file.ok) return { reason: Reasons.resourceError, message: file.error };
  const wanted = findExpected(file.value, subject) ?? onlyOfKind(file.value, subject);
  if (!wanted) return { reason: Reasons.resourceError, message: TestMessages.notInFile(path, subject) };
  const diffs = compareResources(wanted, withDefaultNamespace(subject));
  return diffs.length === 0
    ? undefined
    : { reason: Reasons.resourceDiff, message: TestMessages.patchedDiff(path, diffs) };
}

function checkGenerated(path: string, rule: RuleResponse, options: JudgeOptions): ResourceVerdict {
  const generated = (rule.generated ?? []).map((g) => g.object);
  if (generated.length === 0)
    return { reason: Reasons.resourceError, message: TestMessages.nothingGenerated };
  const file = readExpected(path, options);
  if (!file.ok) return { reason: Reasons.resourceError, message: file.error };
  let compared = 0;
  for (const object of generated) {
    const wanted = findExpected(file.value, object);
    if (!wanted) continue;
    compared++;
    const diffs = compareResources(withoutGenerateLabels(wanted), withDefaultNamespace(object));
    if (diffs.length > 0)
      return { reason: Reasons.resourceDiff, message: TestMessages.generatedDiff(path, diffs) };
  }
  if (compared === 0) {
    return {
      reason: Reasons.resourceError,
      message: TestMessages.notInFile(path, generated[0] as KubeObject),
    };
  }
  return undefined;
}

function verdict(
  base: OutcomeBase,
  line: ExpectedResult,
  checks: readonly Check[],
  options: JudgeOptions,
): LineOutcome {
  const expected = base.expected;
  const patched = line.patchedResources ?? line.patchedResource;
  const actuals: string[] = [];
  const messages: string[] = [];
  let failure: { reason: string; message: string } | undefined;
  for (const { e, rule, subject } of checks) {
    const actual = reportResult(e.policy, rule, options.auditWarn ?? false);
    if (!actuals.includes(actual)) actuals.push(actual);
    if (rule.message) messages.push(rule.message);
    if (failure !== undefined) continue;
    const resourceFailure =
      (patched ? checkPatched(patched, subject, options) : undefined) ??
      (line.generatedResource && (actual === "pass" || (rule.generated ?? []).length > 0)
        ? checkGenerated(line.generatedResource, rule, options)
        : undefined);
    // As upstream: a line expecting `fail` is met when the resource does not match its file.
    if (resourceFailure) failure = expected === "fail" ? undefined : resourceFailure;
    else if (actual !== expected) failure = { reason: Reasons.want(expected, actual), message: "" };
  }
  if (actuals.length === 0) {
    return { ...base, actual: "excluded", ok: true, reason: Reasons.excluded, message: Reasons.excluded };
  }
  const message = [failure?.message ?? "", ...messages].filter((m) => m !== "").join("; ");
  return {
    ...base,
    actual: actuals.join(","),
    ok: failure === undefined,
    reason: failure?.reason ?? Reasons.ok,
    message,
  };
}
