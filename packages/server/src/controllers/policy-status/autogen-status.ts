/**
 * Autogen rules as upstream writes them in `status.autogen.rules`: each Pod controller kind with its
 * group and version (`apps/v1/Deployment`, `batch/v1/CronJob`, `v1/ReplicationController`). Kinds
 * that are not built-in Pod controllers (custom resources named in the autogen annotation) and kinds
 * already written with a version are kept as they are, after the built-in ones, which come in
 * upstream's order (DaemonSet, Deployment, Job, StatefulSet, ReplicaSet, ReplicationController).
 */
import type { JsonObject, JsonValue } from "@kyverno-ts/api";

/** The built-in Pod controllers in upstream's order, with their group and version. */
const CONTROLLER_VERSIONS: Readonly<Record<string, string>> = {
  DaemonSet: "apps/v1",
  Deployment: "apps/v1",
  Job: "batch/v1",
  StatefulSet: "apps/v1",
  ReplicaSet: "apps/v1",
  ReplicationController: "v1",
  CronJob: "batch/v1",
};
const ORDER = Object.keys(CONTROLLER_VERSIONS);
const rank = (kind: JsonValue): number => {
  const i = typeof kind === "string" ? ORDER.indexOf(kind) : -1;
  return i < 0 ? ORDER.length : i;
};

/** `Deployment` → `apps/v1/Deployment`; other kinds unchanged. */
export function qualifiedControllerKind(kind: string): string {
  const version = CONTROLLER_VERSIONS[kind];
  return version === undefined ? kind : `${version}/${kind}`;
}

const isObject = (v: JsonValue | undefined): v is JsonObject =>
  typeof v === "object" && v !== null && !Array.isArray(v);

function qualifyFilter(filter: JsonValue): JsonValue {
  if (!isObject(filter) || !isObject(filter.resources)) return filter;
  const kinds = filter.resources.kinds;
  if (!Array.isArray(kinds)) return filter;
  return {
    ...filter,
    resources: {
      ...filter.resources,
      kinds: [...kinds]
        .sort((a, b) => rank(a) - rank(b))
        .map((k) => (typeof k === "string" ? qualifiedControllerKind(k) : k)),
    },
  };
}

function qualifyBlock(block: JsonValue | undefined): JsonValue | undefined {
  if (!isObject(block)) return block;
  const out: JsonObject = qualifyFilter(block) as JsonObject;
  for (const key of ["any", "all"] as const) {
    const list = out[key];
    if (Array.isArray(list)) out[key] = list.map(qualifyFilter);
  }
  return out;
}

/** An autogen rule with its match and exclude kinds qualified as upstream writes them. */
export function upstreamAutogenRule(rule: JsonObject): JsonObject {
  const out: JsonObject = { ...rule };
  for (const key of ["match", "exclude"] as const) {
    const block = qualifyBlock(rule[key]);
    if (block !== undefined) out[key] = block;
  }
  return out;
}
