import type {
  ObjectReference,
  PolicyReportResult,
  PolicyReportSummary,
  PolicySeverity,
} from "@kyverno-ts/api";
import type { PolicyResponse, RuleResponse, RuleStatus, RuleType } from "../response/types.js";

/** Annotation that, set to `"false"` on a policy, turns its failures into warnings (upstream). */
export const SCORED_ANNOTATION = "policies.kyverno.io/scored";

const SEVERITIES: ReadonlySet<string> = new Set<PolicySeverity>([
  "critical",
  "high",
  "medium",
  "low",
  "info",
]);

/** The report `source` of each policy kind, as upstream writes it; `kyverno` for the kyverno.io kinds. */
const SOURCES: Readonly<Record<string, string>> = {
  ValidatingPolicy: "KyvernoValidatingPolicy",
  NamespacedValidatingPolicy: "KyvernoValidatingPolicy",
  ImageValidatingPolicy: "KyvernoImageValidatingPolicy",
  NamespacedImageValidatingPolicy: "KyvernoImageValidatingPolicy",
  MutatingPolicy: "KyvernoMutatingPolicy",
  NamespacedMutatingPolicy: "KyvernoMutatingPolicy",
  GeneratingPolicy: "KyvernoGeneratingPolicy",
  NamespacedGeneratingPolicy: "KyvernoGeneratingPolicy",
  DeletingPolicy: "KyvernoDeletingPolicy",
  NamespacedDeletingPolicy: "KyvernoDeletingPolicy",
  ValidatingAdmissionPolicy: "ValidatingAdmissionPolicy",
  MutatingAdmissionPolicy: "MutatingAdmissionPolicy",
};

/** How rule statuses become report results. */
export interface ReportOptions {
  /** The policy's `policies.kyverno.io/scored` annotation is `"false"`: failures are warnings. */
  unscored?: boolean;
  /** Report Audit failures as warnings (`kyverno apply --audit-warn`). */
  auditWarn?: boolean;
  /**
   * The rule types that get results (default: validate rules only, as the CLI's `--policy-report` and
   * background scans). The admission controller reports its mutate rules too, as upstream's
   * `--enableReporting` default does.
   */
  ruleTypes?: readonly RuleType[];
  /** Leave `resources` out, as per-resource reports do (their `scope` names the resource). */
  omitResources?: boolean;
  /** Properties every result gets after the rule's own (e.g. the reports controller's `process`). */
  properties?: Readonly<Record<string, string>>;
}

const VALIDATION_ONLY: readonly RuleType[] = ["Validation"];

/**
 * The PolicyReport result of a rule response, as upstream's `ComputePolicyReportResult`: the rule
 * status, except that a failure is a `warn` when the policy is not scored, or with `auditWarn` when
 * the rule's effective failure action is Audit.
 */
export function reportStatus(rule: RuleResponse, options: ReportOptions = {}): RuleStatus {
  if (rule.status !== "fail") return rule.status;
  if (options.unscored) return "warn";
  if (options.auditWarn && rule.failureAction === "Audit") return "warn";
  return "fail";
}

/** The object reference a report result points at. */
export function resourceReference(response: PolicyResponse): ObjectReference {
  const r = response.resource;
  const ref: ObjectReference = { apiVersion: r.apiVersion, kind: r.kind, name: r.name };
  if (r.namespace) ref.namespace = r.namespace;
  if (r.uid) ref.uid = r.uid;
  return ref;
}

/**
 * A generated object as upstream's `generated-resources` property names it: Go's
 * `GroupVersionKind.String()` then name and namespace (`/v1, Kind=ConfigMap Name=cm Namespace=prod`).
 */
function generatedResourceName(generated: NonNullable<RuleResponse["generated"]>[number]): string {
  const o = generated.object;
  const apiVersion = o.apiVersion ?? "";
  const gv = apiVersion.includes("/") ? apiVersion : `/${apiVersion}`;
  return `${gv}, Kind=${o.kind ?? ""} Name=${o.metadata?.name ?? ""} Namespace=${o.metadata?.namespace ?? ""}`;
}

/** The rule's report properties, and the objects a generate rule made (`generated-resources`). */
function resultProperties(rule: RuleResponse): Record<string, string> | undefined {
  const generated = rule.generated ?? [];
  const props =
    generated.length === 0
      ? rule.properties
      : { ...rule.properties, "generated-resources": generated.map(generatedResourceName).join("; ") };
  return props !== undefined && Object.keys(props).length > 0 ? props : undefined;
}

/**
 * Report results of the validate rule responses (or of `ruleTypes`) of one policy response, as upstream builds them:
 * source `kyverno` (`KyvernoValidatingPolicy` and friends for the CEL kinds), policy (`ns/name` for namespaced Policies), rule, result, message,
 * category/severity from the policy annotations, the resource reference, scored, timestamp and
 * the rule's report properties. Use it for PolicyReports and for the CLI's `--policy-report`.
 */
export function policyReportResults(
  response: PolicyResponse,
  options: ReportOptions = {},
): PolicyReportResult[] {
  const p = response.policy;
  const resource = options.omitResources === true ? undefined : resourceReference(response);
  const out: PolicyReportResult[] = [];
  const types = options.ruleTypes ?? VALIDATION_ONLY;
  for (const rule of response.rules) {
    if (!types.includes(rule.type)) continue;
    // Built in one go, in the order upstream writes the fields (`resources` right after `message`).
    const result: PolicyReportResult = {
      source: SOURCES[p.kind] ?? "kyverno",
      policy: p.namespace ? `${p.namespace}/${p.name}` : p.name,
      rule: rule.name,
      result: reportStatus(rule, options),
      message: rule.message,
      ...(resource === undefined ? undefined : { resources: [resource] }),
      scored: !options.unscored,
      timestamp: { seconds: Math.floor(response.timestamp / 1000), nanos: 0 },
    };
    if (response.category) result.category = response.category;
    const severity = response.severity?.toLowerCase();
    if (severity !== undefined && SEVERITIES.has(severity)) result.severity = severity as PolicySeverity;
    const properties = resultProperties(rule);
    if (options.properties !== undefined) result.properties = { ...properties, ...options.properties };
    else if (properties !== undefined) result.properties = properties;
    out.push(result);
  }
  return out;
}

/** Counts results by outcome, in upstream's summary shape. */
export function reportSummary(results: readonly PolicyReportResult[]): Required<PolicyReportSummary> {
  const counts = { pass: 0, fail: 0, warn: 0, error: 0, skip: 0 };
  for (const r of results) if (r.result !== undefined) counts[r.result]++;
  return counts;
}
