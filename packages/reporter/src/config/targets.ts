/**
 * Validation of the `target:` block: each supported kind and its channels, field by field, so a
 * wrong value is refused with its key. Kinds this implementation does not have (S3, Kinesis,
 * SecurityHub, GCS, Jira) are reported when configured and otherwise ignored.
 */
import type { CommonTargetConfig } from "../targets/config/kind-spec.js";
import { COMMON_BOOLEAN_KEYS, COMMON_STRING_KEYS } from "../targets/config/kind-spec.js";
import {
  kindSpec,
  SUPPORTED_TARGET_KINDS,
  type TargetKind,
  type TargetsConfig,
} from "../targets/config/kinds.js";
import type { FilterConfig } from "../targets/filter/filter.js";
import type { DeliveryOptions } from "../targets/types.js";
import { ConfigError, type Section, type WarningSink } from "./read.js";

/** Target kinds of the Helm values that are not implemented. */
export const UNSUPPORTED_TARGET_KINDS: readonly string[] = ["jira", "s3", "kinesis", "securityHub", "gcs"];

function readFilter(s: Section): FilterConfig | undefined {
  const out: FilterConfig = {};
  const ns = s.section("namespaces");
  const include = ns.strList("include");
  const exclude = ns.strList("exclude");
  const selector = ns.strMap("selector");
  ns.warnUnknown();
  if (include.length || exclude.length || selector) {
    out.namespaces = {
      ...(include.length ? { include } : {}),
      ...(exclude.length ? { exclude } : {}),
      ...(selector ? { selector } : {}),
    };
  }
  for (const key of ["status", "severities", "priorities", "policies", "sources", "reportLabels"] as const) {
    const ie = s.includeExclude(key);
    if (ie) out[key] = ie;
  }
  s.warnUnknown();
  return Object.keys(out).length > 0 ? out : undefined;
}

function readDelivery(s: Section): DeliveryOptions | undefined {
  const out: DeliveryOptions = {};
  if (s.has("timeoutMs")) out.timeoutMs = s.int("timeoutMs", 0, { min: 1 });
  if (s.has("retries")) out.retries = s.int("retries", 0, { min: 0 });
  if (s.has("backoffMs")) out.backoffMs = s.int("backoffMs", 0, { min: 0 });
  if (s.has("maxBackoffMs")) out.maxBackoffMs = s.int("maxBackoffMs", 0, { min: 0 });
  s.warnUnknown();
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Reads one target (or channel) mapping: the common keys, then the keys its kind's spec declares. */
function readTarget(kind: TargetKind, s: Section, channel: boolean): CommonTargetConfig {
  const out: Record<string, unknown> = {};
  const spec = kindSpec(kind);
  for (const key of [...COMMON_STRING_KEYS, ...spec.strings]) if (s.has(key)) out[key] = s.str(key);
  for (const key of [...COMMON_BOOLEAN_KEYS, ...(spec.booleans ?? [])]) {
    if (s.has(key)) out[key] = s.bool(key, false);
  }
  for (const [key, allowed] of Object.entries(spec.enums ?? {})) {
    const value = s.str(key);
    if (value === "") continue;
    if (!allowed.includes(value)) {
      throw new ConfigError(s.at(key), `must be one of ${allowed.join(", ")}, not ${JSON.stringify(value)}`);
    }
    out[key] = value;
  }
  if (s.has("sources")) out.sources = s.strList("sources");
  for (const key of ["customFields", "headers"]) {
    const map = s.strMap(key);
    if (map) out[key] = map;
  }
  if (s.has("filter")) {
    const filter = readFilter(s.section("filter"));
    if (filter) out.filter = filter;
  }
  if (s.has("delivery")) {
    const delivery = readDelivery(s.section("delivery"));
    if (delivery) out.delivery = delivery;
  }
  for (const [key, read] of Object.entries(spec.objects ?? {})) {
    if (!s.has(key)) continue;
    const value = read(s.section(key));
    if (value !== undefined) out[key] = value;
  }
  if (!channel) {
    const channels = s.sections("channels").map((c) => readTarget(kind, c, true));
    if (channels.length > 0) out.channels = channels;
  }
  // A misspelt key (`webhok`) would leave the target without its endpoint: say so.
  s.warnUnknown();
  return out as CommonTargetConfig;
}

const ENDPOINT_KEYS = [
  "host",
  "webhook",
  "endpoint",
  "bucket",
  "accountId",
  "streamName",
  "secretRef",
  "mountedSecret",
];

/** True when an unsupported target block names an endpoint or has channels (so ignoring it deserves a warning). */
function configured(value: unknown): boolean {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const block = value as Record<string, unknown>;
  if (Array.isArray(block.channels) && block.channels.length > 0) return true;
  return ENDPOINT_KEYS.some((k) => typeof block[k] === "string" && block[k] !== "");
}

/** Reads the `target:` block. */
export function readTargets(s: Section, warn: WarningSink): TargetsConfig {
  const out: Record<string, CommonTargetConfig> = {};
  for (const kind of SUPPORTED_TARGET_KINDS) {
    if (!s.has(kind)) continue;
    out[kind] = readTarget(kind, s.section(kind), false);
  }
  for (const kind of UNSUPPORTED_TARGET_KINDS) {
    if (configured(s.raw(kind))) warn(s.at(kind), "this target kind is not supported; ignored");
  }
  s.raw("crd");
  s.warnUnknown();
  return out as TargetsConfig;
}
