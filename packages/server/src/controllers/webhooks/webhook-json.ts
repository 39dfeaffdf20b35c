/**
 * A webhook of a Validating- or MutatingWebhookConfiguration in its JSON form, as the controllers
 * compute it (classic policies in `webhook-configs.ts`, CEL policies in `cel-webhooks.ts`).
 */
import type { FailurePolicy } from "../../policycache/policy-cache.js";

/** A label selector in its JSON form. */
export interface LabelSelectorJson {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] }>;
}

/** One `rules[]` entry of a webhook. */
export interface WebhookRuleJson {
  apiGroups: string[];
  apiVersions: string[];
  resources: string[];
  operations: string[];
  scope: "*";
}

/** `clientConfig` of a webhook. */
export interface ClientConfigJson {
  service?: { namespace: string; name: string; port: number; path: string };
  url?: string;
  caBundle: string;
}

/** One webhook, with every field the API server would default spelled out (so comparisons are exact). */
export interface WebhookJson {
  name: string;
  clientConfig: ClientConfigJson;
  rules: WebhookRuleJson[];
  failurePolicy: FailurePolicy;
  matchPolicy: "Equivalent" | "Exact";
  namespaceSelector: LabelSelectorJson;
  objectSelector: LabelSelectorJson;
  sideEffects: "None" | "NoneOnDryRun";
  timeoutSeconds: number;
  admissionReviewVersions: string[];
  reinvocationPolicy?: "IfNeeded" | "Never";
  /** CEL conditions the API server checks before calling (a CEL policy's own webhook). */
  matchConditions?: Array<{ name: string; expression: string }>;
}
