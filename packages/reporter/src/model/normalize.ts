/**
 * Normalisation: raw PolicyReport / ClusterPolicyReport / Report / ClusterReport objects (as read
 * from the API server, so `unknown`) into the {@link Report} model. Never throws: a report that
 * cannot be used at all is an error value; recoverable problems are listed as issues.
 */
import { reportId, resourceId, resultId } from "./ids.js";
import type { ModelIssue } from "./issues.js";
import { limit } from "./limits.js";
import {
  DEFAULT_CATEGORY,
  isSeverity,
  isStatus,
  type Report,
  type ReportKind,
  type ResourceRef,
  type Result,
  type Severity,
} from "./types.js";

/** Accepted apiVersion groups per kind. */
const KINDS: Record<ReportKind, string> = {
  PolicyReport: "wgpolicyk8s.io/",
  ClusterPolicyReport: "wgpolicyk8s.io/",
  Report: "openreports.io/",
  ClusterReport: "openreports.io/",
};

/** Options of {@link normalizeReport}. */
export interface NormalizeOptions {
  /** The kind to assume when the object carries none (items of a list response omit it). */
  kind?: ReportKind;
}

/** The outcome of {@link normalizeReport}: a report with its issues, or the reason there is none. */
export type NormalizeResult =
  | { readonly ok: true; readonly report: Report; readonly issues: readonly ModelIssue[] }
  | { readonly ok: false; readonly error: ModelIssue; readonly issues: readonly ModelIssue[] };

type Obj = Record<string, unknown>;

function isObj(value: unknown): value is Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function str(value: unknown): string {
  return typeof value === "string" ? value : "";
}

/** Normalises one raw report object. See {@link NormalizeResult}. */
export function normalizeReport(input: unknown, options: NormalizeOptions = {}): NormalizeResult {
  const issues: ModelIssue[] = [];
  const fail = (path: string, message: string): NormalizeResult => ({
    ok: false,
    error: { code: "REPORT_INVALID", path, message },
    issues,
  });
  if (!isObj(input)) return fail("", "report is not an object");
  const kind = (input.kind ?? options.kind) as unknown;
  if (typeof kind !== "string" || !Object.hasOwn(KINDS, kind)) {
    return fail("kind", `unknown report kind ${JSON.stringify(kind)}`);
  }
  const reportKind = kind as ReportKind;
  const apiVersion = input.apiVersion;
  if (
    apiVersion !== undefined &&
    (typeof apiVersion !== "string" || !apiVersion.startsWith(KINDS[reportKind]))
  ) {
    return fail("apiVersion", `apiVersion ${JSON.stringify(apiVersion)} does not serve ${reportKind}`);
  }
  const metadata = input.metadata;
  if (!isObj(metadata)) return fail("metadata", "metadata is missing");
  const rawName = str(metadata.name);
  if (!rawName) return fail("metadata.name", "metadata.name is missing");
  const cluster = reportKind === "ClusterPolicyReport" || reportKind === "ClusterReport";
  const rawNamespace = cluster ? "" : str(metadata.namespace);
  if (!cluster && !rawNamespace) return fail("metadata.namespace", `${reportKind} without a namespace`);
  const rawResults = input.results ?? [];
  if (!Array.isArray(rawResults)) return fail("results", "results is not a list");

  const scope = input.scope === undefined ? undefined : resource(input.scope, "scope", issues);
  const results: Result[] = [];
  const seen = new Set<string>();
  let source = "";
  for (const r of rawResults) {
    if (isObj(r) && typeof r.source === "string" && r.source) {
      source = limit(r.source, "source", "results[].source", []); // the result records the issue
      break;
    }
  }
  rawResults.forEach((raw, index) => {
    for (const result of normalizeResult(raw, `results[${index}]`, { scope, source }, issues)) {
      if (seen.has(result.id)) {
        issues.push({
          code: "RESULT_DUPLICATE_ID",
          path: `results[${index}]`,
          message: `result ID ${result.id} already seen in this report`,
        });
        continue;
      }
      seen.add(result.id);
      results.push(result);
    }
  });

  const created = Date.parse(str(metadata.creationTimestamp));
  const report: Report = {
    id: reportId(rawNamespace, rawName),
    kind: reportKind,
    name: limit(rawName, "name", "metadata.name", issues),
    namespace: limit(rawNamespace, "namespace", "metadata.namespace", issues),
    source,
    labels: labels(metadata.labels, issues),
    scope,
    created: Number.isNaN(created) ? 0 : created,
    results,
  };
  return { ok: true, report, issues };
}

function labels(value: unknown, issues: ModelIssue[]): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isObj(value)) return out;
  for (const [key, v] of Object.entries(value)) {
    if (typeof v !== "string") continue;
    const path = `metadata.labels.${key}`;
    out[limit(key, "labelKey", path, issues)] = limit(v, "labelValue", path, issues);
  }
  return out;
}

function resource(value: unknown, path: string, issues: ModelIssue[]): ResourceRef | undefined {
  if (!isObj(value)) {
    issues.push({ code: "RESOURCE_INVALID", path, message: "resource reference is not an object" });
    return undefined;
  }
  const ref = {
    apiVersion: limit(str(value.apiVersion), "apiVersion", `${path}.apiVersion`, issues),
    kind: limit(str(value.kind), "kind", `${path}.kind`, issues),
    name: limit(str(value.name), "name", `${path}.name`, issues),
    namespace: limit(str(value.namespace), "namespace", `${path}.namespace`, issues),
    uid: limit(str(value.uid), "uid", `${path}.uid`, issues),
  };
  return { id: resourceId(ref), ...ref };
}

function timestamp(value: unknown): number {
  if (!isObj(value)) return 0;
  const seconds = typeof value.seconds === "string" ? Number(value.seconds) : value.seconds;
  return typeof seconds === "number" && Number.isFinite(seconds) ? Math.trunc(seconds) : 0;
}

function properties(value: unknown, path: string, issues: ModelIssue[]): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isObj(value)) return out;
  for (const [key, v] of Object.entries(value)) {
    if (v === undefined || v === null) continue;
    let text: string;
    if (typeof v === "string") text = v;
    else {
      issues.push({ code: "PROPERTY_INVALID", path: `${path}.${key}`, message: `property is a ${typeof v}` });
      text = typeof v === "object" ? JSON.stringify(v) : String(v);
    }
    out[limit(key, "propertyKey", `${path}.${key}`, issues)] = limit(
      text,
      "propertyValue",
      `${path}.${key}`,
      issues,
    );
  }
  return out;
}

/** Normalises one result into one result per resource it names (or one without/with the scope). */
function normalizeResult(
  raw: unknown,
  path: string,
  report: { scope: ResourceRef | undefined; source: string },
  issues: ModelIssue[],
): Result[] {
  if (!isObj(raw)) {
    issues.push({ code: "RESULT_INVALID", path, message: "result is not an object" });
    return [];
  }
  const rawPolicy = str(raw.policy);
  if (!rawPolicy) {
    issues.push({ code: "RESULT_MISSING_POLICY", path: `${path}.policy`, message: "result names no policy" });
    return [];
  }
  const rawStatus = str(raw.result);
  const status = rawStatus.toLowerCase();
  if (!isStatus(status)) {
    issues.push({
      code: "RESULT_UNKNOWN_STATUS",
      path: `${path}.result`,
      message:
        raw.result === undefined ? "result is missing" : `unknown result ${JSON.stringify(raw.result)}`,
    });
    return [];
  }
  let severity: Severity | "" = "";
  if (raw.severity !== undefined && raw.severity !== "") {
    const s = str(raw.severity).toLowerCase();
    if (isSeverity(s)) severity = s;
    else
      issues.push({
        code: "RESULT_UNKNOWN_SEVERITY",
        path: `${path}.severity`,
        message: `unknown severity ${JSON.stringify(raw.severity)}`,
      });
  }
  const rawRule = str(raw.rule);
  const rawCategory = str(raw.category);
  const rawMessage = str(raw.message);
  const props = properties(raw.properties, `${path}.properties`, issues);
  const base = {
    source: raw.source ? limit(str(raw.source), "source", `${path}.source`, issues) : report.source,
    policy: limit(rawPolicy, "policy", `${path}.policy`, issues),
    rule: limit(rawRule, "rule", `${path}.rule`, issues),
    status,
    severity,
    category: rawCategory ? limit(rawCategory, "category", `${path}.category`, issues) : DEFAULT_CATEGORY,
    message: limit(rawMessage, "message", `${path}.message`, issues),
    scored: raw.scored !== false,
    timestamp: timestamp(raw.timestamp),
    properties: props,
  };
  const resources: (ResourceRef | undefined)[] = [];
  if (Array.isArray(raw.resources) && raw.resources.length > 0) {
    raw.resources.forEach((r, i) => {
      resources.push(resource(r, `${path}.resources[${i}]`, issues));
    });
  } else {
    resources.push(report.scope);
  }
  return resources.map((res) => {
    const id = resultId({
      resourceName: res?.name ?? "",
      resourceUid: res?.uid ?? "",
      policy: rawPolicy,
      rule: rawRule,
      status: rawStatus,
      category: rawCategory,
      message: rawMessage,
      properties: props,
    });
    return { ...base, id: limit(id, "id", `${path}.properties.resultID`, issues), resource: res };
  });
}
