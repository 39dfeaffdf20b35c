/**
 * Webhook `rules[]` matching, as k8s.io/apiserver/pkg/admission/plugin/webhook/predicates/rules does it,
 * and the resources that are never sent to webhooks.
 */
import type { WebhookRule } from "./config.js";
import type { AdmissionAttributes } from "./types.js";

function exactOrWildcard(items: readonly string[], requested: string): boolean {
  return items.some((item) => item === "*" || item === requested);
}

function isNamespaceResource(attrs: AdmissionAttributes): boolean {
  const r = attrs.resource;
  return r.group === "" && r.version === "v1" && r.resource === "namespaces";
}

/**
 * `scope`: `*` matches everything; `Namespaced` needs a namespace and is never a Namespace object;
 * `Cluster` is a request without a namespace or on a Namespace object (upstream decides with the
 * request's namespace, not with the resource's declared scope).
 */
function scopeMatches(scope: string, attrs: AdmissionAttributes): boolean {
  switch (scope) {
    case "*":
      return true;
    case "Namespaced":
      return !isNamespaceResource(attrs) && attrs.namespace !== "";
    case "Cluster":
      return isNamespaceResource(attrs) || attrs.namespace === "";
    default:
      return false;
  }
}

function splitResource(entry: string): [string, string] {
  const slash = entry.indexOf("/");
  return slash < 0 ? [entry, ""] : [entry.slice(0, slash), entry.slice(slash + 1)];
}

function resourceMatches(resources: readonly string[], attrs: AdmissionAttributes): boolean {
  return resources.some((entry) => {
    const [res, sub] = splitResource(entry);
    return (res === "*" || res === attrs.resource.resource) && (sub === "*" || sub === attrs.subResource);
  });
}

/**
 * True when one rule matches the request: scope, operation (`*` for all), API group and version
 * (exact or `*`), and resource: `pods` matches only the main resource, `pods/status` only that
 * subresource, `*` every main resource, `pods/*` pods and all its subresources, `*\/*` everything
 * (upstream's `sub == "*"` also holds for the main resource).
 */
export function ruleMatches(rule: WebhookRule, attrs: AdmissionAttributes): boolean {
  return (
    scopeMatches(rule.scope, attrs) &&
    rule.operations.some((op) => op === "*" || op === attrs.operation) &&
    exactOrWildcard(rule.apiGroups, attrs.resource.group) &&
    exactOrWildcard(rule.apiVersions, attrs.resource.version) &&
    resourceMatches(rule.resources, attrs)
  );
}

const EXEMPT_KINDS = new Set([
  "ValidatingWebhookConfiguration",
  "MutatingWebhookConfiguration",
  "ValidatingAdmissionPolicy",
  "ValidatingAdmissionPolicyBinding",
  "MutatingAdmissionPolicy",
  "MutatingAdmissionPolicyBinding",
]);

/**
 * Admission configuration objects are never sent to webhooks (upstream
 * `IsExemptAdmissionConfigurationResource`), so a broken webhook cannot lock out its own repair.
 */
export function isExemptFromWebhooks(attrs: AdmissionAttributes): boolean {
  return attrs.kind.group === "admissionregistration.k8s.io" && EXEMPT_KINDS.has(attrs.kind.kind);
}
