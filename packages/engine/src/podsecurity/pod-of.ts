import type { JsonValue } from "@kyverno-ts/api";

type JsonMap = { [key: string]: JsonValue };

/** Kinds whose pod template is at `spec.template`, as Kyverno's podSecurity handler reads them. */
const TEMPLATE_KINDS: ReadonlySet<string> = new Set([
  "DaemonSet",
  "Deployment",
  "Job",
  "StatefulSet",
  "ReplicaSet",
  "ReplicationController",
]);

/**
 * Extracts pod metadata and spec from a Pod (`metadata`, `spec`), a pod controller (`spec.template`) or
 * a CronJob (`spec.jobTemplate.spec.template`); a missing part is `{}`. Undefined for any other kind,
 * which Kyverno reports as a rule error.
 */
export function podOf(resource: JsonValue): { podMetadata: JsonValue; podSpec: JsonValue } | undefined {
  const obj = asMap(resource);
  const kind = obj?.kind;
  if (obj === undefined || typeof kind !== "string") return undefined;
  let pod: JsonMap | undefined;
  if (kind === "Pod") pod = obj;
  else if (TEMPLATE_KINDS.has(kind)) pod = asMap(asMap(obj.spec)?.template);
  else if (kind === "CronJob") pod = asMap(asMap(asMap(asMap(obj.spec)?.jobTemplate)?.spec)?.template);
  else return undefined;
  return { podMetadata: asMap(pod?.metadata) ?? {}, podSpec: asMap(pod?.spec) ?? {} };
}

function asMap(v: JsonValue | undefined): JsonMap | undefined {
  return v !== null && v !== undefined && typeof v === "object" && !Array.isArray(v) ? v : undefined;
}
