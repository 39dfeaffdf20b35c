/**
 * The four webhook configurations, as upstream names them, computed from the loaded policies: the
 * resource webhooks (validate and mutate, one webhook per failure policy, rules narrowed to the kinds
 * and operations the policies match, the longest policy timeout capped at 30 s) and the policy and
 * exception validation webhooks. A pure function of its inputs, so every leader computes the same
 * objects and a leader change writes nothing.
 */

import type { ResolvedResource } from "../../cluster-state/kinds.js";
import type { CachedCelPolicy } from "../../policycache/cel-policy-store.js";
import type { KyvernoConfig } from "../admission/filters.js";
import { CEL_POLICY_RESOURCES, celWebhooks } from "./cel-webhooks.js";
import type { ClientConfigJson, LabelSelectorJson, WebhookJson, WebhookRuleJson } from "./webhook-json.js";
import type { KindOperations, PolicyWebhookNeeds } from "./webhook-rules.js";

/** Upstream's configuration names. */
export const WEBHOOK_CONFIGURATION_NAMES = {
  resourceValidating: "kyverno-resource-validating-webhook-cfg",
  resourceMutating: "kyverno-resource-mutating-webhook-cfg",
  policyValidating: "kyverno-policy-validating-webhook-cfg",
  exceptionValidating: "kyverno-exception-validating-webhook-cfg",
} as const;

/** The label on every configuration this controller manages. */
export const MANAGED_BY_LABEL = { "webhook.kyverno.io/managed-by": "kyverno" } as const;

/** The most the API server waits for a webhook. */
export const MAX_TIMEOUT_SECONDS = 30;

/** Where the API server sends requests: the Service (in a cluster) or a URL (outside of it). */
export type WebhookEndpoint =
  | { service: { namespace: string; name: string; port: number } }
  | { url: string };

/** A Validating- or MutatingWebhookConfiguration. */
export interface WebhookConfigurationJson {
  apiVersion: "admissionregistration.k8s.io/v1";
  kind: "ValidatingWebhookConfiguration" | "MutatingWebhookConfiguration";
  /** Name and labels; on updates, the rest of the stored metadata (resourceVersion, annotations…). */
  metadata: { name: string; labels: Record<string, string>; [key: string]: unknown };
  webhooks: WebhookJson[];
}

/** Inputs of `buildWebhookConfigurations`. */
export interface WebhookBuildInputs {
  needs: readonly PolicyWebhookNeeds[];
  /** Resources of each kind selector; selectors missing here are left out (not served yet). */
  resolved: ReadonlyMap<string, readonly ResolvedResource[]>;
  endpoint: WebhookEndpoint;
  /** base64 PEM bundle of the CA(s). */
  caBundle: string;
  /** `--webhookTimeout`. */
  defaultTimeoutSeconds: number;
  namespaceSelector: LabelSelectorJson;
  objectSelector: LabelSelectorJson;
  /** The CEL policies (`policies.kyverno.io`) admission evaluates; none when omitted. */
  cel?: readonly CachedCelPolicy[];
}

const OPERATION_ORDER = ["CREATE", "UPDATE", "DELETE", "CONNECT"];
const byOrder = (a: string, b: string): number => OPERATION_ORDER.indexOf(a) - OPERATION_ORDER.indexOf(b);

function clientConfig(endpoint: WebhookEndpoint, path: string, caBundle: string): ClientConfigJson {
  if ("url" in endpoint) return { url: `${endpoint.url.replace(/\/+$/, "")}${path}`, caBundle };
  return { service: { ...endpoint.service, path }, caBundle };
}

/** Merges (kind, operations) needs into rules: one per group, version and set of operations. */
function rulesFor(
  needs: readonly KindOperations[],
  resolved: ReadonlyMap<string, readonly ResolvedResource[]>,
  withEphemeral: boolean,
): WebhookRuleJson[] {
  const merged = new Map<string, { group: string; version: string; ops: string[]; resources: Set<string> }>();
  for (const need of needs) {
    const ops = [...new Set(need.operations)].sort(byOrder);
    for (const r of resolved.get(need.selector) ?? []) {
      const key = `${r.group}\u0000${r.version}\u0000${ops.join(",")}`;
      let entry = merged.get(key);
      if (!entry) {
        entry = { group: r.group, version: r.version, ops, resources: new Set() };
        merged.set(key, entry);
      }
      entry.resources.add(r.resource);
      // Upstream sends ephemeral container updates to Pod rules (the engine matches them too).
      if (withEphemeral && r.group === "" && r.resource === "pods")
        entry.resources.add("pods/ephemeralcontainers");
    }
  }
  return [...merged.keys()].sort().map((key) => {
    const e = merged.get(key) as { group: string; version: string; ops: string[]; resources: Set<string> };
    return {
      apiGroups: [e.group],
      apiVersions: [e.version],
      resources: [...e.resources].sort(),
      operations: e.ops,
      scope: "*",
    };
  });
}

function clampTimeout(seconds: number): number {
  return Math.min(MAX_TIMEOUT_SECONDS, Math.max(1, Math.floor(seconds)));
}

function resourceWebhooks(inputs: WebhookBuildInputs, type: "validate" | "mutate"): WebhookJson[] {
  const out: WebhookJson[] = [];
  for (const failurePolicy of ["Fail", "Ignore"] as const) {
    const group = inputs.needs.filter((n) => n.failurePolicy === failurePolicy && n[type].length > 0);
    const rules = rulesFor(
      group.flatMap((n) => n[type]),
      inputs.resolved,
      type === "validate",
    );
    if (rules.length === 0) continue;
    const timeout = Math.max(...group.map((n) => n.timeoutSeconds ?? inputs.defaultTimeoutSeconds));
    const suffix = failurePolicy.toLowerCase();
    const webhook: WebhookJson = {
      name: `${type}.kyverno.svc-${suffix}`,
      clientConfig: clientConfig(inputs.endpoint, `/${type}/${suffix}`, inputs.caBundle),
      rules,
      failurePolicy,
      matchPolicy: "Equivalent",
      namespaceSelector: inputs.namespaceSelector,
      objectSelector: inputs.objectSelector,
      sideEffects: "NoneOnDryRun",
      timeoutSeconds: clampTimeout(timeout),
      admissionReviewVersions: ["v1"],
    };
    if (type === "mutate") webhook.reinvocationPolicy = "IfNeeded";
    out.push(webhook);
  }
  return out;
}

function configuration(
  kind: WebhookConfigurationJson["kind"],
  name: string,
  webhooks: WebhookJson[],
): WebhookConfigurationJson {
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind,
    metadata: { name, labels: { ...MANAGED_BY_LABEL } },
    webhooks,
  };
}

function kyvernoResourceWebhook(
  inputs: WebhookBuildInputs,
  name: string,
  path: string,
  resources: string[],
  celResources: string[],
): WebhookJson {
  const rule = (group: string, names: string[]): WebhookRuleJson => ({
    apiGroups: [group],
    apiVersions: ["*"],
    resources: names,
    operations: ["CREATE", "UPDATE"],
    scope: "*",
  });
  return {
    name,
    clientConfig: clientConfig(inputs.endpoint, path, inputs.caBundle),
    rules: [rule("kyverno.io", resources), rule("policies.kyverno.io", celResources)],
    failurePolicy: "Fail",
    matchPolicy: "Equivalent",
    namespaceSelector: {},
    objectSelector: {},
    sideEffects: "None",
    timeoutSeconds: clampTimeout(inputs.defaultTimeoutSeconds),
    admissionReviewVersions: ["v1"],
  };
}

/**
 * The four configurations, in a fixed order (resource validating, resource mutating, policy
 * validating, exception validating). With no policy, the resource configurations have no webhooks:
 * correct for "no policies", never a stale list.
 */
export function buildWebhookConfigurations(inputs: WebhookBuildInputs): WebhookConfigurationJson[] {
  const names = WEBHOOK_CONFIGURATION_NAMES;
  const cel = celWebhooks(inputs.cel ?? [], {
    clientConfig: (path) => clientConfig(inputs.endpoint, path, inputs.caBundle),
    defaultTimeoutSeconds: inputs.defaultTimeoutSeconds,
    namespaceSelector: inputs.namespaceSelector,
    objectSelector: inputs.objectSelector,
    clampTimeout,
  });
  return [
    configuration("ValidatingWebhookConfiguration", names.resourceValidating, [
      ...resourceWebhooks(inputs, "validate"),
      ...cel.validating,
    ]),
    configuration("MutatingWebhookConfiguration", names.resourceMutating, [
      ...resourceWebhooks(inputs, "mutate"),
      ...cel.mutating,
    ]),
    configuration("ValidatingWebhookConfiguration", names.policyValidating, [
      kyvernoResourceWebhook(
        inputs,
        "validate-policy.kyverno.svc",
        "/policyvalidate",
        ["clusterpolicies", "policies"],
        CEL_POLICY_RESOURCES,
      ),
    ]),
    configuration("ValidatingWebhookConfiguration", names.exceptionValidating, [
      kyvernoResourceWebhook(
        inputs,
        "validate-exception.kyverno.svc",
        "/exceptionvalidate",
        ["policyexceptions"],
        ["policyexceptions"],
      ),
    ]),
  ];
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function selectorFrom(v: unknown): LabelSelectorJson {
  if (!isRecord(v)) return {};
  const out: LabelSelectorJson = {};
  if (isRecord(v.matchLabels))
    out.matchLabels = Object.fromEntries(
      Object.entries(v.matchLabels).filter((e): e is [string, string] => typeof e[1] === "string"),
    );
  if (Array.isArray(v.matchExpressions))
    out.matchExpressions = v.matchExpressions.filter(isRecord).map((e) => ({
      key: String(e.key ?? ""),
      operator: String(e.operator ?? ""),
      ...(Array.isArray(e.values) ? { values: e.values.map(String) } : {}),
    }));
  return out;
}

/**
 * Namespaces the resource webhooks never need to see: kube-system, Kyverno's own namespace and every
 * namespace a `resourceFilters` entry excludes entirely (`[*\/*,<namespace>,*]`).
 */
export function excludedNamespaces(config: KyvernoConfig, kyvernoNamespace: string): string[] {
  const out = new Set(["kube-system", kyvernoNamespace]);
  for (const f of config.resourceFilters) {
    const s = f.selector;
    const everything = s.kind === "*" && s.subresource === "*" && s.group === "*" && s.version === "*";
    if (everything && f.name === "*" && f.namespace !== "" && !/[*?]/.test(f.namespace)) out.add(f.namespace);
  }
  return [...out].sort();
}

/**
 * The selectors of the resource webhooks: excluded namespaces (see `excludedNamespaces`) plus the
 * namespace and object selectors of the ConfigMap's `webhooks` setting (upstream's format, a JSON
 * list whose first entry holds `namespaceSelector` / `objectSelector`).
 */
export function webhookSelectors(
  config: KyvernoConfig,
  kyvernoNamespace: string,
): { namespaceSelector: LabelSelectorJson; objectSelector: LabelSelectorJson } {
  const first = Array.isArray(config.webhooks) ? (config.webhooks[0] as unknown) : config.webhooks;
  const fromConfig = isRecord(first) ? selectorFrom(first.namespaceSelector) : {};
  const namespaceSelector: LabelSelectorJson = {
    matchExpressions: [
      {
        key: "kubernetes.io/metadata.name",
        operator: "NotIn",
        values: excludedNamespaces(config, kyvernoNamespace),
      },
      ...(fromConfig.matchExpressions ?? []),
    ],
  };
  if (fromConfig.matchLabels && Object.keys(fromConfig.matchLabels).length > 0)
    namespaceSelector.matchLabels = fromConfig.matchLabels;
  return { namespaceSelector, objectSelector: isRecord(first) ? selectorFrom(first.objectSelector) : {} };
}
