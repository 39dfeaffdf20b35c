/**
 * End-to-end test support: a sandbox API server with the report CRDs, report objects as Kyverno
 * writes them (current timestamps), and small helpers to write them and wait for effects.
 */
import { readFileSync } from "node:fs";
import { type JsonObject, parseDocuments } from "@kyverno-ts/api";
import { createKubeClient, type KubeClient } from "@kyverno-ts/kube";
import { type Sandbox, startSandbox } from "@kyverno-ts/sandbox";
import { parseReporterConfig } from "../config/parse.js";
import type { ReporterConfig } from "../config/types.js";
import type { ReporterMetrics } from "../metrics/metrics.js";

const REFERENCE = new URL("../../../../../shared/reference/kyverno-crds/policyreport/", import.meta.url)
  .pathname;

/** The PolicyReport CRD files of the reference (never copied). */
export const POLICY_REPORT_CRDS = [
  `${REFERENCE}wgpolicyk8s.io_policyreports.yaml`,
  `${REFERENCE}wgpolicyk8s.io_clusterpolicyreports.yaml`,
];

/** The CRD objects of the reference files (to install them after start). */
export function policyReportCrdObjects(): JsonObject[] {
  return POLICY_REPORT_CRDS.flatMap((file) =>
    parseDocuments(readFileSync(file, "utf8"), file).documents.map((d) => d.value as JsonObject),
  );
}

/** Minimal OpenReports CRDs (schema-less), so malformed reports reach the reporter. */
export function openReportsCrds(): JsonObject[] {
  return (
    [
      ["Report", "reports", "Namespaced"],
      ["ClusterReport", "clusterreports", "Cluster"],
    ] as const
  ).map(([kind, plural, scope]) => ({
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.openreports.io` },
    spec: {
      group: "openreports.io",
      scope,
      names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
      versions: [
        {
          name: "v1alpha1",
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
        },
      ],
    },
  }));
}

/** A sandbox with a client. */
export interface TestCluster {
  sandbox: Sandbox;
  client: KubeClient;
  /** Creates or replaces an object. */
  apply(object: JsonObject): Promise<void>;
  /** Deletes an object (ignores 404). */
  remove(apiVersion: string, kind: string, name: string, namespace?: string): Promise<void>;
  stop(): Promise<void>;
}

/** Starts a sandbox (with the PolicyReport CRDs unless `withCrds: false`) and namespaces. */
export async function startTestCluster(
  options: { withCrds?: boolean; openReports?: boolean; namespaces?: string[] } = {},
): Promise<TestCluster> {
  const crds: (string | JsonObject)[] = options.withCrds === false ? [] : [...POLICY_REPORT_CRDS];
  if (options.openReports) crds.push(...openReportsCrds());
  const sandbox = await startSandbox({ crds, admission: false });
  const client = createKubeClient({ kubeconfigPath: sandbox.kubeconfigPath, qps: 0 });
  const apply = async (object: JsonObject): Promise<void> => {
    const created = await client.create(object);
    if (created.ok) return;
    if (created.status !== 409) throw new Error(`create failed: ${created.status} ${created.message}`);
    const meta = object.metadata as { name: string; namespace?: string };
    const current = await client.get({
      apiVersion: String(object.apiVersion),
      kind: String(object.kind),
      name: meta.name,
      ...(meta.namespace ? { namespace: meta.namespace } : {}),
    });
    if (!current.ok) throw new Error(`get failed: ${current.message}`);
    const rv = current.value.metadata?.resourceVersion;
    const next: JsonObject = {
      ...object,
      metadata: { ...(object.metadata as JsonObject), resourceVersion: rv ?? "" },
    };
    const updated = await client.update(next);
    if (!updated.ok) throw new Error(`update failed: ${updated.status} ${updated.message}`);
  };
  for (const name of options.namespaces ?? []) {
    await apply({ apiVersion: "v1", kind: "Namespace", metadata: { name } });
  }
  return {
    sandbox,
    client,
    apply,
    async remove(apiVersion, kind, name, namespace) {
      const deleted = await client.delete({ apiVersion, kind, name, ...(namespace ? { namespace } : {}) });
      if (!deleted.ok && deleted.status !== 404) throw new Error(`delete failed: ${deleted.message}`);
    },
    async stop() {
      client.close();
      await sandbox.stop();
    },
  };
}

/** A result as Kyverno writes it, timestamped now. */
export function liveResult(fields: Record<string, unknown> = {}): JsonObject {
  return {
    source: "kyverno",
    policy: "require-labels",
    rule: "check-team",
    result: "fail",
    severity: "high",
    category: "Best Practices",
    message: "label 'team' is required",
    scored: true,
    timestamp: { seconds: Math.floor(Date.now() / 1000), nanos: 0 },
    ...fields,
  } as JsonObject;
}

/** A PolicyReport about one Pod (a ClusterPolicyReport without `namespace`). */
export function policyReport(options: {
  name: string;
  namespace?: string;
  results: JsonObject[];
  labels?: Record<string, string>;
  apiVersion?: string;
  kind?: string;
}): JsonObject {
  const ns = options.namespace;
  return {
    apiVersion: options.apiVersion ?? "wgpolicyk8s.io/v1alpha2",
    kind: options.kind ?? (ns ? "PolicyReport" : "ClusterPolicyReport"),
    metadata: {
      name: options.name,
      ...(ns ? { namespace: ns } : {}),
      labels: options.labels ?? { "app.kubernetes.io/managed-by": "kyverno" },
    },
    ...(ns
      ? {
          scope: {
            apiVersion: "v1",
            kind: "Pod",
            name: options.name,
            namespace: ns,
            uid: `uid-${ns}-${options.name}`,
          },
        }
      : {}),
    results: options.results,
    summary: {},
  } as JsonObject;
}

/** A validated configuration from a YAML-like object (defaults for the rest). */
export function testConfig(raw: Record<string, unknown> = {}): ReporterConfig {
  return parseReporterConfig({ sourceFilters: [], ...raw }).config;
}

/** Polls `check` until it returns a value other than `undefined`/`false`; throws after `ms`. */
export async function eventually<T>(
  check: () => Promise<T | undefined | false> | T | undefined | false,
  ms = 5000,
  what = "condition",
): Promise<T> {
  const start = Date.now();
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() - start > ms)
      throw new Error(`${what} not met within ${ms} ms${last ? `: ${String(last)}` : ""}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The values of a counter or gauge by one label (or the joined label set). */
export async function metricValues(
  metrics: ReporterMetrics,
  name: string,
  label?: string,
): Promise<Record<string, number>> {
  const all = await metrics.registry.getMetricsAsJSON();
  const out: Record<string, number> = {};
  for (const v of all.find((m) => m.name === name)?.values ?? []) {
    const key = label ? String(v.labels[label]) : JSON.stringify(v.labels);
    out[key] = (out[key] ?? 0) + v.value;
  }
  return out;
}
