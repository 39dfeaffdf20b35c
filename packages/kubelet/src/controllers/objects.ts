/** Small pieces the controllers share: the workload types they read, selectors, owners, hashes. */
import { createHash } from "node:crypto";
import type { ObjectMeta, Pod, PodSpec } from "../pods/pod-types.js";

/** A label selector (`matchLabels` and `matchExpressions`). */
export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] }>;
}

/** A Pod template. */
export interface PodTemplate {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: PodSpec;
}

/** A Deployment. */
export interface Deployment {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec: {
    replicas?: number;
    selector: LabelSelector;
    template: PodTemplate;
    minReadySeconds?: number;
    revisionHistoryLimit?: number;
    paused?: boolean;
    strategy?: {
      type?: "RollingUpdate" | "Recreate";
      rollingUpdate?: { maxSurge?: number | string; maxUnavailable?: number | string };
    };
  };
  status?: Record<string, unknown>;
}

/** A ReplicaSet. */
export interface ReplicaSet {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec: { replicas?: number; selector: LabelSelector; template: PodTemplate; minReadySeconds?: number };
  status?: { replicas?: number; readyReplicas?: number; availableReplicas?: number };
}

/** A Job. */
export interface Job {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec: {
    backoffLimit?: number;
    completions?: number;
    parallelism?: number;
    template: PodTemplate;
    suspend?: boolean;
  };
  status?: {
    active?: number;
    succeeded?: number;
    failed?: number;
    startTime?: string;
    completionTime?: string;
    conditions?: Array<{ type: string; status: string }>;
  };
}

/** A Service. */
export interface Service {
  metadata: ObjectMeta;
  spec: {
    selector?: Record<string, string>;
    ports?: Array<{ name?: string; port: number; targetPort?: number | string; protocol?: string }>;
    type?: string;
    clusterIP?: string;
  };
}

/** Whether `labels` match `selector` (an empty selector matches everything). */
export function matches(
  selector: LabelSelector,
  labels: Readonly<Record<string, string>> | undefined,
): boolean {
  const l = labels ?? {};
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (l[k] !== v) return false;
  for (const e of selector.matchExpressions ?? []) {
    const has = Object.hasOwn(l, e.key);
    const value = l[e.key] ?? "";
    const values = e.values ?? [];
    if (e.operator === "In" && !(has && values.includes(value))) return false;
    if (e.operator === "NotIn" && has && values.includes(value)) return false;
    if (e.operator === "Exists" && !has) return false;
    if (e.operator === "DoesNotExist" && has) return false;
  }
  return true;
}

/** The controller owner reference of an object pointing at `owner`. */
export function ownerReference(
  owner: { apiVersion?: string; kind?: string; metadata: ObjectMeta },
  apiVersion: string,
  kind: string,
) {
  return {
    apiVersion,
    kind,
    name: owner.metadata.name,
    uid: owner.metadata.uid ?? "",
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** Whether `object` is controlled by the object with `uid`. */
export function controlledBy(object: { metadata: ObjectMeta }, uid: string | undefined): boolean {
  return (
    uid !== undefined &&
    (object.metadata.ownerReferences ?? []).some((o) => o.controller === true && o.uid === uid)
  );
}

const SAFE = "bcdfghjklmnpqrstvwxz2456789";

/**
 * A stable hash of a Pod template in kube's "safe" alphabet (the `pod-template-hash` label). It hashes
 * what the Go types hold: keys sorted, and the zero values Go writes out (`creationTimestamp: null`,
 * `resources: {}`) left out, so a template `kubectl rollout undo` writes back (decoded and encoded by
 * kubectl, keys in another order) is the same template.
 */
export function templateHash(template: PodTemplate): string {
  const digest = createHash("sha256").update(canonicalJson(template)).digest();
  return Array.from(digest.subarray(0, 10), (b) => SAFE[b % SAFE.length]).join("");
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  const fields = Object.keys(value)
    .sort()
    .map((k) => [k, canonicalJson((value as Record<string, unknown>)[k])] as const)
    .filter(([, v]) => v !== "null" && v !== "{}");
  return `{${fields.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(",")}}`;
}

/** Five random characters of the same alphabet (generated names). */
export function randomSuffix(): string {
  return Array.from({ length: 5 }, () => SAFE[Math.floor(Math.random() * SAFE.length)]).join("");
}

/** Resolves an int-or-percent against `total` (rounding up for surge, down for unavailability). */
export function intOrPercent(
  value: number | string | undefined,
  total: number,
  fallback: string,
  roundUp: boolean,
): number {
  const v = value ?? fallback;
  if (typeof v === "number") return v;
  if (v.endsWith("%")) {
    const exact = (Number(v.slice(0, -1)) * total) / 100;
    return roundUp ? Math.ceil(exact) : Math.floor(exact);
  }
  return Number(v);
}

/** Whether a Pod is Ready (its `Ready` condition is True) and not being deleted. */
export function podReady(pod: Pod): boolean {
  return (
    pod.metadata.deletionTimestamp === undefined &&
    (pod.status?.conditions ?? []).some((c) => c.type === "Ready" && c.status === "True")
  );
}

/** Whether a Pod counts as active (not finished, not being deleted). */
export function podActive(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return pod.metadata.deletionTimestamp === undefined && phase !== "Succeeded" && phase !== "Failed";
}

/** A Pod object for a template, owned by `owner`, with a generated name. */
export function podFromTemplate(
  template: PodTemplate,
  namespace: string,
  generateName: string,
  owner: ReturnType<typeof ownerReference>,
  nodeName: string,
  extraLabels: Record<string, string> = {},
): Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: `${generateName}${randomSuffix()}`,
      generateName,
      namespace,
      labels: { ...(template.metadata?.labels ?? {}), ...extraLabels },
      ...(template.metadata?.annotations === undefined ? {} : { annotations: template.metadata.annotations }),
      ownerReferences: [owner],
    },
    spec: { ...template.spec, nodeName },
  };
}
