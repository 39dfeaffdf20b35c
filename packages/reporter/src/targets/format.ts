/**
 * Text formatting shared by the target payload builders: field titles, resource strings, truncation
 * and the shared JSON body of webhook-like targets.
 */
import { resultPriority } from "./severity.js";
import type { NotifiableResult, NotificationEvent, ResourceRef } from "./types.js";

/**
 * Title-cases a property or custom-field key for display ("owner" → "Owner",
 * "team-name" → "Team-Name"): the first letter of each word separated by space, `-` or `_` is upper-cased.
 */
export function titleCase(key: string): string {
  return key.replace(/(^|[\s_-])(\p{Ll})/gu, (_m, sep: string, ch: string) => sep + ch.toUpperCase());
}

/** `namespace/kind/name` with the kind lower-cased, as upstream's resource string ("" without resource). */
export function resourceString(resource: ResourceRef | undefined): string {
  if (resource === undefined) return "";
  return [resource.namespace, resource.kind?.toLowerCase(), resource.name]
    .filter((p): p is string => p !== undefined && p !== "")
    .join("/");
}

/** Cuts `text` to at most `max` characters, ending with "…" when cut. */
export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
}

/** Key/value pairs sorted by key, so payloads are deterministic. */
export function sortedEntries(record: Readonly<Record<string, string>> | undefined): [string, string][] {
  return record === undefined ? [] : Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** "New Policy Report Result(s)" or "Resolved Policy Report Result(s)". */
export function eventTitle(event: NotificationEvent | undefined, plural: boolean): string {
  const what = plural ? "Policy Report Results" : "Policy Report Result";
  return event === "resolved" ? `Resolved ${what}` : `New ${what}`;
}

/** Splits `items` into chunks of at most `size` elements. */
export function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * The JSON body upstream shares between webhook, Elasticsearch, S3 and similar targets. Custom fields are
 * merged into `properties`; `creationTimestamp` is the result's timestamp (or now) in ISO 8601.
 */
export interface SharedJsonResult {
  message: string;
  policy: string;
  rule: string;
  priority: string;
  status: string;
  severity?: string;
  category?: string;
  scored: boolean;
  properties?: Record<string, string>;
  resource: ResourceRef;
  creationTimestamp: string;
  source?: string;
}

/** Builds the shared JSON body of a result; `now` stands in for a missing timestamp. */
export function sharedJsonResult(
  result: NotifiableResult,
  customFields: Readonly<Record<string, string>> | undefined,
  now: Date,
): SharedJsonResult {
  const properties = { ...result.properties, ...customFields };
  const resource: ResourceRef = {};
  const r = result.resource;
  if (r?.apiVersion) resource.apiVersion = r.apiVersion;
  if (r?.kind) resource.kind = r.kind;
  if (r?.name) resource.name = r.name;
  if (r?.namespace) resource.namespace = r.namespace;
  if (r?.uid) resource.uid = r.uid;
  // Keys in upstream's order; empty optional fields are omitted as upstream's `omitempty`.
  const body: SharedJsonResult = {
    message: result.message,
    policy: result.policy,
    rule: result.rule ?? "",
    priority: resultPriority(result),
    status: result.result,
    ...(result.severity ? { severity: result.severity } : {}),
    ...(result.category ? { category: result.category } : {}),
    scored: result.scored ?? false,
    ...(Object.keys(properties).length > 0 ? { properties } : {}),
    resource,
    creationTimestamp: new Date(result.timestamp ?? now.getTime()).toISOString(),
    ...(result.source ? { source: result.source } : {}),
  };
  return body;
}
