/**
 * Whether a webhook is called for a request (upstream generic.Webhook.ShouldCallHook): selectors,
 * rules, then matchConditions.
 */
import type { WebhookSpec } from "./config.js";
import type { DispatchContext } from "./context.js";
import { forbidden, logLine } from "./errors.js";
import { admissionRequestBase } from "./review.js";
import { ruleMatches } from "./rules.js";
import { matchNamespaceSelector, matchObjectSelector } from "./selectors.js";
import type { AdmissionAttributes, StatusError } from "./types.js";

/** Call the webhook, skip it, or fail the request with `error`. */
export type CallDecision = { call: boolean; error?: undefined } | { call: false; error: StatusError };

/**
 * Decides for one webhook. A selector that cannot be parsed only fails the request when a rule also
 * matches. `matchPolicy: Equivalent` is treated as `Exact`: the sandbox serves one version per
 * resource, so there are no equivalent resources to convert to. matchConditions see the current
 * object; when one is false the webhook is skipped, when one errors (and none is false) the request
 * fails with 403 under `Fail` and the webhook is skipped under `Ignore`.
 */
export function shouldCallHook(
  hook: WebhookSpec,
  attrs: AdmissionAttributes,
  ctx: DispatchContext,
): CallDecision {
  const ns = matchNamespaceSelector(hook.namespaceSelector, attrs);
  if (!ns.matches && ns.error === undefined) return { call: false };
  const obj = matchObjectSelector(hook.objectSelector, attrs);
  if (!obj.matches && obj.error === undefined) return { call: false };
  if (!hook.rules.some((rule) => ruleMatches(rule, attrs))) return { call: false };
  if (ns.error !== undefined) return { call: false, error: ns.error };
  if (obj.error !== undefined) return { call: false, error: obj.error };
  if (hook.matchConditions.length === 0) return { call: true };
  const { resource, subResource, namespace, name } = attrs;
  const result = ctx.conditions.evaluate(hook.matchConditions, hook.failurePolicy, {
    object: attrs.object,
    oldObject: attrs.oldObject,
    request: admissionRequestBase(attrs),
    requestResource: {
      group: resource.group,
      resource: resource.resource,
      subresource: subResource,
      namespace,
      name,
    },
  });
  if (result.error !== undefined) {
    ctx.logger.warn({ webhook: hook.name }, logLine.conditionsFailingClosed(hook.name, result.error));
    return { call: false, error: forbidden(resource.group, resource.resource, name, result.error) };
  }
  return { call: result.matches };
}
