/**
 * Loki target (batch mode): the push API, one stream per result labelled with its fields.
 */
import { basicAuth, createJsonSender } from "../delivery/sender.js";
import { resultPriority } from "../severity.js";
import type { BaseTargetOptions, NotifiableResult, SendContext, Target, TargetDeps } from "../types.js";

/** Options of the Loki target. */
export interface LokiOptions extends BaseTargetOptions {
  /** Loki base URL, e.g. `http://loki:3100`. */
  host: string;
  /** Push path (default `/loki/api/v1/push`). */
  path?: string;
  username?: string;
  password?: string;
}

/** A Loki stream: labels and `[timestamp in ns, line]` values. */
export interface LokiStream {
  stream: Record<string, string>;
  values: [string, string][];
}

/** The push body. */
export interface LokiPayload {
  streams: LokiStream[];
}

/** The default push path. */
export const LOKI_PUSH_PATH = "/loki/api/v1/push";

/** A valid Loki label name: characters outside `[a-zA-Z0-9_]` become `_`, no leading digit. */
export function lokiLabelName(key: string): string {
  const name = key.replace(/[^a-zA-Z0-9_]/g, "_");
  return /^[0-9]/.test(name) ? `_${name}` : name;
}

/**
 * The stream of one result. Labels: status, policy, rule, category, severity, source, apiVersion, kind, name,
 * namespace, createdBy=policy-reporter, the properties and the custom fields (names sanitised); the line is
 * `[SEVERITY] message` (the priority when there is no severity) at the result's timestamp.
 */
export function lokiStream(
  result: NotifiableResult,
  customFields: Readonly<Record<string, string>> | undefined,
  now: Date,
): LokiStream {
  const labels: Record<string, string> = { status: result.result, policy: result.policy };
  const set = (key: string, value: string | undefined): void => {
    if (value) labels[key] = value;
  };
  set("rule", result.rule);
  set("category", result.category);
  set("severity", result.severity);
  set("source", result.source);
  const res = result.resource;
  set("apiVersion", res?.apiVersion);
  set("kind", res?.kind);
  set("name", res?.name);
  set("namespace", res?.namespace);
  labels.createdBy = "policy-reporter";
  for (const [k, v] of Object.entries(result.properties ?? {})) set(lokiLabelName(k), v);
  for (const [k, v] of Object.entries(customFields ?? {})) set(lokiLabelName(k), v);
  const ms = result.timestamp ?? now.getTime();
  const ns = (BigInt(Math.trunc(ms)) * 1_000_000n).toString();
  const level = (result.severity ?? resultPriority(result)).toUpperCase();
  return { stream: labels, values: [[ns, `[${level}] ${result.message}`]] };
}

/** Creates the Loki target: one push per batch, with basic auth when `username` is set. */
export function createLokiTarget(options: LokiOptions, deps: TargetDeps): Target {
  const name = options.name ?? "Loki";
  const post = createJsonSender(name, options.headers, options.delivery, deps);
  const url = `${options.host.replace(/\/+$/, "")}${options.path || LOKI_PUSH_PATH}`;
  const auth: Record<string, string> = options.username
    ? { authorization: basicAuth(options.username, options.password ?? "") }
    : {};
  const sendBatch = async (results: readonly NotifiableResult[], _context?: SendContext): Promise<void> => {
    if (results.length === 0) return;
    const now = new Date(deps.clock.now());
    const payload: LokiPayload = { streams: results.map((r) => lokiStream(r, options.customFields, now)) };
    await post({ url, payload, headers: auth });
  };
  return { name, send: (result, context) => sendBatch([result], context), sendBatch };
}
