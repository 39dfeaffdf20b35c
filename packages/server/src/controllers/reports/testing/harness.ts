/** Test helpers: a sandbox with Kyverno's CRDs, a client, controllers and report queries. */
import { fileURLToPath } from "node:url";
import type { AnyPolicyReport, JsonObject, KubeObject } from "@kyverno-ts/api";
import { createEngine } from "@kyverno-ts/engine";
import {
  createKubeClient,
  type KubeClient,
  type ObjectHeader,
  type QueryEvent,
  type WriteOptions,
} from "@kyverno-ts/kube";
import { type Sandbox, startSandbox } from "@kyverno-ts/sandbox";
import { afterAll, beforeAll } from "vitest";
import type { Logger } from "../../../logger.js";
import { createReportsController } from "../reports-controller.js";
import type { ReportsController, ReportsControllerOptions } from "../types.js";

/** The upstream CRDs in the shared reference folder beside the repository. */
export const CRDS = fileURLToPath(
  new URL("../../../../../../../shared/reference/kyverno-crds/", import.meta.url),
);

/** The CRD files the reports controller needs. */
export const REPORT_CRDS = [
  `${CRDS}kyverno/kyverno.io_clusterpolicies.yaml`,
  `${CRDS}kyverno/kyverno.io_policies.yaml`,
  `${CRDS}kyverno/kyverno.io_policyexceptions.yaml`,
  `${CRDS}policyreport/wgpolicyk8s.io_policyreports.yaml`,
  `${CRDS}policyreport/wgpolicyk8s.io_clusterpolicyreports.yaml`,
];

/** Starts a sandbox with the CRDs and a client on it. */
export async function startCluster(): Promise<{ sandbox: Sandbox; client: KubeClient }> {
  const sandbox = await startSandbox({ crds: REPORT_CRDS, admission: false });
  const client = createKubeClient({ kubeconfigPath: sandbox.kubeconfigPath, qps: 0 });
  return { sandbox, client };
}

/**
 * Starts a sandbox for the enclosing `describe` block before its tests (handing it to `use`) and
 * stops it after them.
 */
export function useCluster(use: (cluster: { sandbox: Sandbox; client: KubeClient }) => void): void {
  let started: { sandbox: Sandbox; client: KubeClient } | undefined;
  beforeAll(async () => {
    started = await startCluster();
    use(started);
  });
  afterAll(async () => {
    started?.client.close();
    await started?.sandbox.stop();
  });
}

/** A client counting its report writes (create/update/delete of policy reports). */
export function countingClient(
  sandbox: Sandbox,
  limits: { qps?: number; burst?: number } = {},
): { client: KubeClient; writes: () => number } {
  let writes = 0;
  const onQuery = (e: QueryEvent) => {
    if (/PolicyReport$/.test(e.kind) && ["create", "update", "delete", "patch"].includes(e.operation))
      writes++;
  };
  const client = createKubeClient({
    kubeconfigPath: sandbox.kubeconfigPath,
    qps: limits.qps ?? 0,
    ...(limits.burst === undefined ? {} : { burst: limits.burst }),
    onQuery,
  });
  return { client, writes: () => writes };
}

/** A controller with test-friendly defaults (no leader election unless given, short informer retries). */
export function controllerFor(
  client: KubeClient,
  options: Partial<ReportsControllerOptions> = {},
): ReportsController {
  return createReportsController({
    client,
    engine: createEngine(),
    leaderElection: false,
    informerDelay: () => 100,
    ...options,
  });
}

/** Creates (or replaces) an object; throws on failure. */
export async function put(client: KubeClient, object: JsonObject | KubeObject): Promise<KubeObject> {
  const created = await client.create<KubeObject>(object as KubeObject);
  if (created.ok) return created.value;
  if (created.status !== 409) throw new Error(`create failed: ${created.reason}: ${created.message}`);
  const meta = (object as KubeObject).metadata ?? {};
  const ref = {
    apiVersion: String(object.apiVersion),
    kind: String(object.kind),
    name: String(meta.name),
    ...(typeof meta.namespace === "string" ? { namespace: meta.namespace } : {}),
  };
  const current = await client.get(ref);
  if (!current.ok) throw new Error(`get failed: ${current.message}`);
  const updated = await client.update<KubeObject>({
    ...(object as KubeObject),
    metadata: { ...meta, resourceVersion: current.value.metadata?.resourceVersion ?? "" },
  });
  if (!updated.ok) throw new Error(`update failed: ${updated.reason}: ${updated.message}`);
  return updated.value;
}

/** Deletes an object; throws on failure other than NotFound. */
export async function remove(
  client: KubeClient,
  ref: { apiVersion: string; kind: string; name: string; namespace?: string },
) {
  const deleted = await client.delete(ref);
  if (!deleted.ok && deleted.status !== 404) throw new Error(`delete failed: ${deleted.message}`);
}

/** Every PolicyReport and ClusterPolicyReport in the cluster. */
export async function allReports(client: KubeClient): Promise<AnyPolicyReport[]> {
  const out: AnyPolicyReport[] = [];
  for (const kind of ["PolicyReport", "ClusterPolicyReport"]) {
    const listed = await client.list<AnyPolicyReport>({ apiVersion: "wgpolicyk8s.io/v1alpha2", kind });
    if (!listed.ok) throw new Error(`list failed: ${listed.message}`);
    out.push(...listed.value.items);
  }
  return out;
}

/** Polls `check` (async) every 25 ms until it returns true; throws with `what` after `ms`. */
export async function eventually(check: () => Promise<boolean> | boolean, ms = 10_000, what = "condition") {
  const start = Date.now();
  for (;;) {
    if (await check()) return;
    if (Date.now() - start > ms) throw new Error(`${what} not met within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** True once a controller has finished its first full scan and has nothing left to do. */
export function idle(controller: ReportsController): boolean {
  const s = controller.stats();
  return s.leading && s.scans > 0 && s.queued === 0 && s.inFlight === 0 && s.retrying === 0;
}

/** A Pod with one container. */
export function pod(
  name: string,
  namespace: string,
  extra: { labels?: Record<string, string>; image?: string } = {},
) {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace, ...(extra.labels ? { labels: extra.labels } : {}) },
    spec: { containers: [{ name: "app", image: extra.image ?? "nginx:1.27" }] },
  };
}

/** A Namespace. */
export function namespace(name: string, labels: Record<string, string> = {}) {
  return { apiVersion: "v1", kind: "Namespace", metadata: { name, labels } };
}

/** A background Audit ClusterPolicy requiring a label on Pods (autogen applies to controllers). */
export function requireLabelPolicy(
  name: string,
  label: string,
  extra: { background?: boolean; annotations?: Record<string, string> } = {},
) {
  return {
    apiVersion: "kyverno.io/v1",
    kind: "ClusterPolicy",
    metadata: {
      name,
      annotations: {
        "policies.kyverno.io/category": "Best Practices",
        "policies.kyverno.io/severity": "medium",
        ...extra.annotations,
      },
    },
    spec: {
      validationFailureAction: "Audit",
      background: extra.background ?? true,
      rules: [
        {
          name: `check-${label}`,
          match: { any: [{ resources: { kinds: ["Pod"] } }] },
          validate: {
            message: `The label \`${label}\` is required.`,
            pattern: { metadata: { labels: { [label]: "?*" } } },
          },
        },
      ],
    },
  };
}

/** A logger keeping every line, for assertions on what was logged. */
export function recordingLogger(): Logger & {
  lines: Array<{ level: string; fields: object; message: string }>;
} {
  const lines: Array<{ level: string; fields: object; message: string }> = [];
  const at = (level: string) => (fields: object, message: string) =>
    void lines.push({ level, fields, message });
  return { lines, debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

/** Wraps a client so its first `failures` creates of policy reports fail with a 500. */
export function flakyReportCreates(client: KubeClient, failures: number): KubeClient {
  let left = failures;
  const create = (async <T extends ObjectHeader>(object: T, options?: WriteOptions) => {
    if (/PolicyReport$/.test(object.kind ?? "") && left > 0) {
      left--;
      return { ok: false, status: 500, reason: "InternalError", message: "etcdserver: request timed out" };
    }
    return client.create(object, options);
  }) as KubeClient["create"];
  return { ...client, create };
}
