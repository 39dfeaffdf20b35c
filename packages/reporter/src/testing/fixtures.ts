/**
 * Raw report objects for tests, shaped like what the API server returns.
 */
import { normalizeReport } from "../model/normalize.js";
import type { Report } from "../model/types.js";

/** A raw result (all fields optional so tests can write malformed ones). */
export interface RawResult {
  source?: unknown;
  policy?: unknown;
  rule?: unknown;
  result?: unknown;
  severity?: unknown;
  category?: unknown;
  message?: unknown;
  scored?: unknown;
  timestamp?: unknown;
  properties?: unknown;
  resources?: unknown;
}

/** A Pod reference with a deterministic uid. */
export function pod(name: string, namespace: string) {
  return { apiVersion: "v1", kind: "Pod", name, namespace, uid: `uid-${namespace}-${name}` };
}

/** A Kyverno-style result with defaults (source kyverno, policy require-labels, rule check, pass). */
export function result(fields: RawResult = {}): RawResult {
  return {
    source: "kyverno",
    policy: "require-labels",
    rule: "check",
    result: "pass",
    message: "validation rule 'check' passed.",
    scored: true,
    timestamp: { seconds: 1767225600, nanos: 0 },
    ...fields,
  };
}

/** A namespaced PolicyReport (or ClusterPolicyReport when `namespace` is empty). */
export function report(options: {
  name: string;
  namespace?: string;
  results?: RawResult[];
  scope?: Record<string, string>;
  labels?: Record<string, string>;
  apiVersion?: string;
  kind?: string;
}) {
  const namespace = options.namespace ?? "";
  return {
    apiVersion: options.apiVersion ?? "wgpolicyk8s.io/v1alpha2",
    kind: options.kind ?? (namespace ? "PolicyReport" : "ClusterPolicyReport"),
    metadata: {
      name: options.name,
      ...(namespace ? { namespace } : {}),
      labels: options.labels ?? { "app.kubernetes.io/managed-by": "kyverno" },
      creationTimestamp: "2026-01-01T00:00:00Z",
    },
    ...(options.scope ? { scope: options.scope } : {}),
    results: options.results ?? [],
  };
}

/** Normalises a raw report, failing the test when it is rejected. */
export function normalized(raw: unknown): Report {
  const out = normalizeReport(raw);
  if (!out.ok) throw new Error(`fixture rejected: ${out.error.message}`);
  return out.report;
}
