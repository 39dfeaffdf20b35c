/**
 * AlertManager target (batch mode): `POST /api/v2/alerts` with one alert per result; a resolved result
 * is sent with `endsAt`, which resolves the alert.
 */
import { createJsonSender } from "../delivery/sender.js";
import { resourceString, sortedEntries } from "../format.js";
import type { BaseTargetOptions, NotifiableResult, SendContext, Target, TargetDeps } from "../types.js";

/** Options of the AlertManager target. */
export interface AlertManagerOptions extends BaseTargetOptions {
  /** AlertManager base URL, e.g. `http://alertmanager:9093`. */
  host: string;
}

/** One alert of the v2 API. */
export interface AlertManagerAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  startsAt: string;
  endsAt?: string;
}

/**
 * The alert of one result. Labels: alertname PolicyReporterViolation, severity, status, source, policy,
 * rule, namespace, and the custom fields; annotations: message, category, resource, resource_kind,
 * resource_name, resource_namespace, resource_apiversion and the properties.
 */
export function alertManagerAlert(
  result: NotifiableResult,
  customFields: Readonly<Record<string, string>> | undefined,
  context: SendContext | undefined,
  now: Date,
): AlertManagerAlert {
  const labels: Record<string, string> = { alertname: "PolicyReporterViolation" };
  const annotations: Record<string, string> = {};
  const put = (into: Record<string, string>, key: string, value: string | undefined): void => {
    if (value) into[key] = value;
  };
  put(labels, "severity", result.severity);
  // A resolved alert must carry the labels of the alert it resolves: the status is the failing one.
  const status =
    context?.event === "resolved" ? (context.previousStatus?.[result.id] ?? "fail") : result.result;
  put(labels, "status", status);
  put(labels, "source", result.source);
  put(labels, "policy", result.policy);
  put(labels, "rule", result.rule);
  put(labels, "namespace", result.resource?.namespace);
  for (const [k, v] of sortedEntries(customFields)) put(labels, k, v);
  put(annotations, "message", result.message);
  put(annotations, "category", result.category);
  put(annotations, "resource", resourceString(result.resource));
  put(annotations, "resource_kind", result.resource?.kind);
  put(annotations, "resource_name", result.resource?.name);
  put(annotations, "resource_namespace", result.resource?.namespace);
  put(annotations, "resource_apiversion", result.resource?.apiVersion);
  for (const [k, v] of sortedEntries(result.properties)) put(annotations, k, v);
  const startsAt = new Date(result.timestamp ?? now.getTime()).toISOString();
  return context?.event === "resolved"
    ? { labels, annotations, startsAt, endsAt: now.toISOString() }
    : { labels, annotations, startsAt };
}

/** Creates the AlertManager target: one POST per batch with all its alerts. */
export function createAlertManagerTarget(options: AlertManagerOptions, deps: TargetDeps): Target {
  const name = options.name ?? "AlertManager";
  const post = createJsonSender(name, options.headers, options.delivery, deps);
  const url = `${options.host.replace(/\/+$/, "")}/api/v2/alerts`;
  const sendBatch = async (results: readonly NotifiableResult[], context?: SendContext): Promise<void> => {
    if (results.length === 0) return;
    const now = new Date(deps.clock.now());
    await post({
      url,
      payload: results.map((r) => alertManagerAlert(r, options.customFields, context, now)),
    });
  };
  return { name, send: (result, context) => sendBatch([result], context), sendBatch };
}
