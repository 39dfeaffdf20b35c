/** End to end against the sandbox: admission results in reports, bad input, API errors. */
import { loadPolicy } from "@kyverno-ts/api";
import { createEngine } from "@kyverno-ts/engine";
import type { KubeClient } from "@kyverno-ts/kube";
import type { Sandbox } from "@kyverno-ts/sandbox";
import { describe, expect, it } from "vitest";
import { createBoundedResultQueue } from "../../admission/results.js";
import { createReportsMetrics } from "../metrics.js";
import {
  allReports,
  controllerFor,
  countingClient,
  eventually,
  flakyReportCreates,
  idle,
  namespace,
  pod,
  put,
  recordingLogger,
  remove,
  requireLabelPolicy,
  useCluster,
} from "../testing/harness.js";

const outcomes = async (client: KubeClient, ns: string) =>
  (await allReports(client))
    .filter((r) => r.metadata.namespace === ns)
    .flatMap((r) =>
      (r.results ?? []).map(
        (x) => `${r.scope?.name} ${x.policy}/${x.rule}=${x.result} (${x.properties?.process})`,
      ),
    )
    .sort();

describe("reports controller: admission results and bad input (sandbox)", { timeout: 30_000 }, () => {
  let sandbox: Sandbox;
  let client: KubeClient;
  useCluster((started) => {
    ({ sandbox, client } = started);
  });

  it("keeps admission results handed over before the controller started and leads (generateExisting comes first)", async () => {
    await put(client, namespace("early"));
    const worker = await put(client, pod("worker", "early"));
    // Only an admission policy: no background scan ever reconciles this Pod on its own.
    const admissionOnly = requireLabelPolicy("require-owner-early", "owner", { background: false });
    await put(client, admissionOnly);
    const engine = createEngine();
    const loaded = loadPolicy(admissionOnly, { file: "test" });
    const compiled = loaded.ok ? engine.compile(loaded.value) : undefined;
    if (compiled?.ok !== true) throw new Error("policy");
    const results = createBoundedResultQueue({ capacity: 100 });
    results.offer({
      uid: "request-early",
      timestamp: Date.now(),
      operation: "CREATE",
      resource: {
        apiVersion: "v1",
        kind: "Pod",
        namespace: "early",
        name: "worker",
        uid: String(worker.metadata?.uid),
      },
      responses: [engine.validate(compiled.policy, { resource: worker, operation: "CREATE" })],
    });
    const controller = controllerFor(client, { admissionResults: results });
    await controller.start();
    await eventually(async () => (await outcomes(client, "early")).length === 1, 10_000, "the early row");
    expect(await outcomes(client, "early")).toEqual([
      "worker require-owner-early/check-owner=fail (admission review)",
    ]);
    await controller.stop();
  });

  it("merges admission results into the resource's report, and keeps them across a restart", async () => {
    await put(client, namespace("web"));
    const frontend = await put(client, pod("frontend", "web"));
    const admissionOnly = requireLabelPolicy("require-owner", "owner", { background: false });
    await put(client, requireLabelPolicy("require-team", "team"));
    await put(client, admissionOnly);
    const results = createBoundedResultQueue({ capacity: 100 });
    const first = controllerFor(client, { admissionResults: results });
    await first.start();
    await eventually(async () => (await outcomes(client, "web")).length === 1, 10_000, "scan");
    expect(await outcomes(client, "web")).toEqual([
      "frontend require-team/check-team=fail (background scan)",
    ]);

    // What the webhook hands over for an admitted Pod: the responses of the policies it evaluated.
    const engine = createEngine();
    const loaded = loadPolicy(admissionOnly, { file: "test" });
    const compiled = loaded.ok ? engine.compile(loaded.value) : undefined;
    if (compiled?.ok !== true) throw new Error("policy");
    const response = engine.validate(compiled.policy, { resource: frontend, operation: "CREATE" });
    const meta = frontend.metadata ?? {};
    results.offer({
      uid: "request-1",
      timestamp: Date.now(),
      operation: "CREATE",
      resource: { apiVersion: "v1", kind: "Pod", namespace: "web", name: "frontend", uid: String(meta.uid) },
      responses: [response],
    });
    const merged = [
      "frontend require-owner/check-owner=fail (admission review)",
      "frontend require-team/check-team=fail (background scan)",
    ];
    await eventually(async () => (await outcomes(client, "web")).length === 2, 10_000, "merged");
    expect(await outcomes(client, "web")).toEqual(merged);
    await first.stop();

    // A new controller (no admission results in memory) keeps them: they are read back from the report.
    const counted = countingClient(sandbox);
    const second = controllerFor(counted.client);
    await second.start();
    await eventually(() => idle(second), 10_000, "second scan");
    expect(await outcomes(client, "web")).toEqual(merged);
    expect(counted.writes()).toBe(0);

    // The admission-only policy goes: so does its result.
    await remove(client, { apiVersion: "kyverno.io/v1", kind: "ClusterPolicy", name: "require-owner" });
    await eventually(
      async () => (await outcomes(client, "web")).length === 1,
      10_000,
      "result of deleted policy gone",
    );
    await remove(client, { apiVersion: "kyverno.io/v1", kind: "ClusterPolicy", name: "require-team" });
    await eventually(async () => (await outcomes(client, "web")).length === 0, 10_000, "all gone");
    await second.stop();
  });

  it("reports a rule it cannot evaluate as an error, and retries failed writes with backoff, logging once", async () => {
    await put(client, namespace("broken"));
    await put(client, pod("needs-config", "broken"));
    await put(client, {
      apiVersion: "kyverno.io/v1",
      kind: "ClusterPolicy",
      metadata: { name: "config-driven" },
      spec: {
        validationFailureAction: "Audit",
        background: true,
        rules: [
          {
            name: "allowed-registries",
            match: { any: [{ resources: { kinds: ["Pod"], namespaces: ["broken"] } }] },
            context: [{ name: "registries", configMap: { name: "registries", namespace: "broken" } }],
            validate: {
              message: "registry not allowed",
              deny: {
                conditions: {
                  any: [{ key: "{{ registries.data.allowed }}", operator: "Equals", value: "" }],
                },
              },
            },
          },
        ],
      },
    });
    const logger = recordingLogger();
    const metrics = createReportsMetrics();
    const controller = controllerFor(flakyReportCreates(client, 3), { logger, metrics });
    await controller.start();
    await eventually(
      async () => (await outcomes(client, "broken")).length === 1,
      15_000,
      "report despite failures",
    );
    const [report] = (await allReports(client)).filter((r) => r.metadata.namespace === "broken");
    expect(report?.results?.[0]).toMatchObject({ policy: "config-driven", result: "error" });
    expect(report?.results?.[0]?.message).toMatch(/registries|configmap|context/i);
    expect(report?.summary).toMatchObject({ error: 1, pass: 0, fail: 0 });
    const warnings = logger.lines.filter(
      (l) => l.level === "warn" && l.message.startsWith("cannot write report"),
    );
    expect(warnings).toHaveLength(1);
    // Three requeues of the same key: after its 1st, 2nd and 3rd consecutive failure (upstream's num_requeues).
    const requeues = [
      ...(await metrics.render()).matchAll(
        /^kyverno_controller_requeue_total\{controller_name="background-scan-controller",num_requeues="(\d+)"\} (\d+)$/gm,
      ),
    ].map((m) => [m[1], m[2]]);
    expect(requeues).toEqual([
      ["1", "1"],
      ["2", "1"],
      ["3", "1"],
    ]);
    await remove(client, { apiVersion: "kyverno.io/v1", kind: "ClusterPolicy", name: "config-driven" });
    await eventually(async () => (await outcomes(client, "broken")).length === 0, 10_000, "gone");
    await controller.stop();
  });
});
