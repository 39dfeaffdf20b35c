/**
 * End to end against the sandbox: admission results handed between processes as ephemeral reports
 * (the admission side's publisher and the reports controller use separate clients, as two processes do).
 */
import { loadPolicy } from "@kyverno-ts/api";
import { createEngine } from "@kyverno-ts/engine";
import { createKubeClient, type KubeClient } from "@kyverno-ts/kube";
import { type Sandbox, startSandbox } from "@kyverno-ts/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEphemeralReportPublisher } from "../../../reports/ephemeral-reports.js";
import { type AdmissionResult, createBoundedResultQueue } from "../../admission/results.js";
import {
  allReports,
  CRDS,
  controllerFor,
  eventually,
  idle,
  namespace,
  pod,
  put,
  REPORT_CRDS,
  requireLabelPolicy,
} from "../testing/harness.js";

const outcomes = async (client: KubeClient) =>
  (await allReports(client))
    .filter((r) => r.metadata.namespace === "shop")
    .flatMap((r) =>
      (r.results ?? []).map((x) => `${r.scope?.name} ${x.policy}=${x.result} (${x.properties?.process})`),
    )
    .sort();

async function ephemeralReports(client: KubeClient): Promise<number> {
  const listed = await client.list({ apiVersion: "reports.kyverno.io/v1", kind: "EphemeralReport" });
  if (!listed.ok) throw new Error(listed.message);
  return listed.value.items.length;
}

describe("admission results across processes: ephemeral reports (sandbox)", { timeout: 30_000 }, () => {
  let sandbox: Sandbox;
  let admissionClient: KubeClient;
  let reportsClient: KubeClient;
  beforeAll(async () => {
    sandbox = await startSandbox({
      crds: [
        ...REPORT_CRDS,
        `${CRDS}reports/reports.kyverno.io_ephemeralreports.yaml`,
        `${CRDS}reports/reports.kyverno.io_clusterephemeralreports.yaml`,
      ],
      admission: false,
    });
    admissionClient = createKubeClient({ kubeconfigPath: sandbox.kubeconfigPath, qps: 0 });
    reportsClient = createKubeClient({ kubeconfigPath: sandbox.kubeconfigPath, qps: 0 });
  });
  afterAll(async () => {
    admissionClient?.close();
    reportsClient?.close();
    await sandbox?.stop();
  });

  it("merges them into reports, deletes them once merged, holds one per resource, and survives a restart", async () => {
    const client = admissionClient;
    await put(client, namespace("shop"));
    const cart = await put(client, pod("cart", "shop"));
    const owner = requireLabelPolicy("require-owner", "owner", { background: false });
    const tier = requireLabelPolicy("require-tier", "tier", { background: false });
    await put(client, owner);
    await put(client, tier);

    // The admission process: its webhook's bounded queue, published as ephemeral reports.
    const queue = createBoundedResultQueue({ capacity: 100 });
    const publisher = createEphemeralReportPublisher({ client: admissionClient, source: queue });
    publisher.start();
    const engine = createEngine();
    const admitted = (policy: typeof owner, uid: string, resource = cart): AdmissionResult => {
      const loaded = loadPolicy(policy, { file: "test" });
      const compiled = loaded.ok ? engine.compile(loaded.value) : undefined;
      if (compiled?.ok !== true) throw new Error("policy");
      const meta = cart.metadata ?? {};
      return {
        uid,
        timestamp: Date.now(),
        operation: "CREATE",
        resource: { apiVersion: "v1", kind: "Pod", namespace: "shop", name: "cart", uid: String(meta.uid) },
        responses: [engine.validate(compiled.policy, { resource, operation: "CREATE" })],
      };
    };
    // Two admissions before any reports controller runs: one ephemeral report, both answers in it.
    queue.offer(admitted(owner, "request-1"));
    await publisher.flush();
    queue.offer(admitted(tier, "request-2"));
    await publisher.flush();
    expect(publisher.stats()).toEqual({ written: 2, failed: 0 });
    expect(await ephemeralReports(client)).toBe(1);

    // The reports process: merges them, then deletes what it merged.
    const expected = [
      "cart require-owner=fail (admission review)",
      "cart require-tier=fail (admission review)",
    ];
    const first = controllerFor(reportsClient, { ephemeralReports: true });
    await first.start();
    await eventually(async () => (await outcomes(client)).length === 2, 10_000, "merged");
    expect(await outcomes(client)).toEqual(expected);
    await eventually(async () => (await ephemeralReports(client)) === 0, 10_000, "ephemeral report deleted");
    await first.stop();

    // After a restart the report keeps them (read back from the report), and new admissions still arrive.
    const second = controllerFor(reportsClient, { ephemeralReports: true });
    await second.start();
    await eventually(() => idle(second));
    expect(await outcomes(client)).toEqual(expected);
    const labelled = await put(client, pod("cart", "shop", { labels: { owner: "checkout" } }));
    expect(labelled.metadata?.uid).toBe(cart.metadata?.uid);
    queue.offer(admitted(owner, "request-3", labelled));
    await publisher.flush();
    await eventually(
      async () => (await outcomes(client)).includes("cart require-owner=pass (admission review)"),
      10_000,
      "the newer admission merged",
    );
    expect(await outcomes(client)).toEqual([
      "cart require-owner=pass (admission review)",
      "cart require-tier=fail (admission review)",
    ]);
    await eventually(async () => (await ephemeralReports(client)) === 0, 10_000, "ephemeral report deleted");
    await second.stop();
    await publisher.stop();
  });
});
