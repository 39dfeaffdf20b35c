/**
 * Validation of the `target:` block: each supported kind and its channels, field by field, so a
 * wrong value is refused with its key. Kinds this implementation does not have (S3, Kinesis,
 * SecurityHub, GCS, Jira) are reported when configured and otherwise ignored.
 */
import type { CommonTargetConfig, TargetKind, TargetsConfig } from "../targets/config/config-types.js";
import type { FilterConfig } from "../targets/filter/filter.js";
import type { DeliveryOptions } from "../targets/types.js";
import type { Section, WarningSink } from "./read.js";

/** Per kind, its own string and boolean fields (besides the common ones). */
const KIND_FIELDS: Readonly<Record<TargetKind, { strings: readonly string[]; bools?: readonly string[] }>> = {
  loki: { strings: ["host", "path", "username", "password"] },
  elasticsearch: {
    strings: ["host", "index", "rotation", "username", "password", "apiKey"],
    bools: ["typelessApi"],
  },
  slack: { strings: ["webhook", "channel"] },
  discord: { strings: ["webhook"] },
  teams: { strings: ["webhook"] },
  webhook: { strings: ["webhook"] },
  telegram: { strings: ["token", "chatId", "host"] },
  googleChat: { strings: ["webhook"] },
  alertManager: { strings: ["host"] },
};

/** The supported target kinds, in build order. */
export const SUPPORTED_TARGET_KINDS = Object.keys(KIND_FIELDS) as TargetKind[];

/** Target kinds of the Helm values that are not implemented. */
export const UNSUPPORTED_TARGET_KINDS: readonly string[] = ["jira", "s3", "kinesis", "securityHub", "gcs"];

/** The string fields a Secret (or mounted secret) may set on a target of `kind`. */
export function secretFields(kind: TargetKind): readonly string[] {
  return [...KIND_FIELDS[kind].strings, "certificate"];
}

const COMMON_STRINGS = [
  "name",
  "minimumSeverity",
  "minimumPriority",
  "certificate",
  "secretRef",
  "mountedSecret",
];
const COMMON_BOOLS = ["skipExistingOnStartup", "sendResolved", "skipTLS"];

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

/** Reads one target (or channel) mapping. */
function readTarget(kind: TargetKind, s: Section, channel: boolean): CommonTargetConfig {
  const out: Record<string, unknown> = {};
  const spec = KIND_FIELDS[kind];
  for (const key of [...COMMON_STRINGS, ...spec.strings]) if (s.has(key)) out[key] = s.str(key);
  for (const key of [...COMMON_BOOLS, ...(spec.bools ?? [])]) if (s.has(key)) out[key] = s.bool(key, false);
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
  if (kind === "webhook" && s.has("keepalive")) {
    const k = s.section("keepalive");
    const interval = k.raw("interval");
    if (interval !== undefined && typeof interval !== "string" && typeof interval !== "number") {
      k.str("interval"); // throws with the key
    }
    const params = k.strMap("params");
    out.keepalive = {
      ...(interval === undefined ? {} : { interval: interval as string | number }),
      ...(params ? { params } : {}),
    };
  }
  if (!channel) {
    const channels = s.sections("channels").map((c) => readTarget(kind, c, true));
    if (channels.length > 0) out.channels = channels;
  }
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
