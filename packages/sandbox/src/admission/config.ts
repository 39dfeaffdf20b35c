/**
 * Reading `admissionregistration.k8s.io/v1` Mutating/ValidatingWebhookConfiguration objects (as stored
 * JSON) into webhooks with v1 defaults applied, in the order kube-apiserver calls them.
 */
import type { JsonObject, JsonValue } from "@kyverno-ts/api";

/** One `rules[]` entry (RuleWithOperations), defaults applied. */
export interface WebhookRule {
  operations: string[];
  apiGroups: string[];
  apiVersions: string[];
  resources: string[];
  scope: string;
}

/** Where to POST the AdmissionReview (`clientConfig`). */
export interface WebhookClientConfig {
  url?: string;
  service?: { namespace: string; name: string; path?: string; port: number };
  /** base64-encoded PEM bundle, as stored (a `[]byte` field in JSON form). */
  caBundle?: string;
}

/** One webhook of a configuration, with the defaulting of admissionregistration/v1 applied. */
export interface WebhookSpec {
  /** Unique across configurations (`<configuration>/<webhook>/<index>`), for reinvocation bookkeeping. */
  uid: string;
  configurationName: string;
  name: string;
  clientConfig: WebhookClientConfig;
  rules: WebhookRule[];
  failurePolicy: "Fail" | "Ignore";
  matchPolicy: "Exact" | "Equivalent";
  namespaceSelector: JsonValue;
  objectSelector: JsonValue;
  matchConditions: Array<{ name: string; expression: string }>;
  /** `None`, `NoneOnDryRun`, `Some`, `Unknown`, or undefined when absent. */
  sideEffects: string | undefined;
  timeoutSeconds: number;
  admissionReviewVersions: string[];
  reinvocationPolicy: "Never" | "IfNeeded";
}

const DEFAULT_TIMEOUT_SECONDS = 10;
const MAX_TIMEOUT_SECONDS = 30;

function asObject(value: JsonValue | undefined): JsonObject | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? value : undefined;
}

function asString(value: JsonValue | undefined): string | undefined {
  return typeof value === "string" ? value : undefined;
}

function stringList(value: JsonValue | undefined): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

function readRule(value: JsonValue): WebhookRule | undefined {
  const rule = asObject(value);
  if (rule === undefined) return undefined;
  return {
    operations: stringList(rule.operations),
    apiGroups: stringList(rule.apiGroups),
    apiVersions: stringList(rule.apiVersions),
    resources: stringList(rule.resources),
    scope: asString(rule.scope) ?? "*",
  };
}

function readClientConfig(value: JsonValue | undefined): WebhookClientConfig {
  const cc = asObject(value) ?? {};
  const out: WebhookClientConfig = {};
  const url = asString(cc.url);
  if (url !== undefined) out.url = url;
  const caBundle = asString(cc.caBundle);
  if (caBundle !== undefined && caBundle !== "") out.caBundle = caBundle;
  const svc = asObject(cc.service);
  if (svc !== undefined) {
    const port = typeof svc.port === "number" ? svc.port : 443;
    out.service = { namespace: asString(svc.namespace) ?? "", name: asString(svc.name) ?? "", port };
    const path = asString(svc.path);
    if (path !== undefined) out.service.path = path;
  }
  return out;
}

function readMatchConditions(value: JsonValue | undefined): Array<{ name: string; expression: string }> {
  if (!Array.isArray(value)) return [];
  return value.flatMap((entry) => {
    const mc = asObject(entry);
    if (mc === undefined) return [];
    return [{ name: asString(mc.name) ?? "", expression: asString(mc.expression) ?? "" }];
  });
}

function clampTimeout(value: JsonValue | undefined): number {
  if (typeof value !== "number" || !Number.isFinite(value)) return DEFAULT_TIMEOUT_SECONDS;
  return Math.min(MAX_TIMEOUT_SECONDS, Math.max(1, Math.floor(value)));
}

function readWebhook(configurationName: string, index: number, value: JsonValue): WebhookSpec | undefined {
  const hook = asObject(value);
  if (hook === undefined) return undefined;
  const name = asString(hook.name) ?? "";
  return {
    uid: `${configurationName}/${name}/${index}`,
    configurationName,
    name,
    clientConfig: readClientConfig(hook.clientConfig),
    rules: Array.isArray(hook.rules) ? hook.rules.flatMap((r) => readRule(r) ?? []) : [],
    failurePolicy: hook.failurePolicy === "Ignore" ? "Ignore" : "Fail",
    matchPolicy: hook.matchPolicy === "Exact" ? "Exact" : "Equivalent",
    namespaceSelector: hook.namespaceSelector ?? {},
    objectSelector: hook.objectSelector ?? {},
    matchConditions: readMatchConditions(hook.matchConditions),
    sideEffects: asString(hook.sideEffects),
    timeoutSeconds: clampTimeout(hook.timeoutSeconds),
    admissionReviewVersions: stringList(hook.admissionReviewVersions),
    reinvocationPolicy: hook.reinvocationPolicy === "IfNeeded" ? "IfNeeded" : "Never",
  };
}

/**
 * The webhooks of a list of configurations, in calling order: configurations sorted by name (as
 * upstream's configuration manager does), then webhooks in their order within each. Entries that are
 * not objects are skipped; missing fields get the v1 defaults (failurePolicy Fail, matchPolicy
 * Equivalent, timeoutSeconds 10 — clamped to 1..30 as validation would —, reinvocationPolicy Never).
 */
export function readWebhooks(configurations: readonly JsonValue[]): WebhookSpec[] {
  const named = configurations.flatMap((c) => {
    const obj = asObject(c);
    if (obj === undefined) return [];
    return [{ name: asString(asObject(obj.metadata)?.name) ?? "", obj }];
  });
  named.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return named.flatMap(({ name, obj }) => {
    const hooks = Array.isArray(obj.webhooks) ? obj.webhooks : [];
    return hooks.flatMap((h, i) => readWebhook(name, i, h) ?? []);
  });
}
