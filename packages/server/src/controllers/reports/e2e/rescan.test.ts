/**
 * End to end against the sandbox: what a scan costs the cluster and the process. A rescan of
 * unchanged resources under unchanged policies sends no write, whether in the same process or after a
 * restart; and a scan of expensive policies leaves the event loop free to answer probes, with rules
 * over the engine's budget reported as `error`.
 */
import { createEngine, type Engine } from "@kyverno-ts/engine";
import { createKubeClient, type KubeClient, type QueryEvent } from "@kyverno-ts/kube";
import type { Sandbox } from "@kyverno-ts/sandbox";
import { describe, expect, it } from "vitest";
import { systemClock } from "../../../clock.js";
import { createMetricsServer } from "../../../webhooks/metrics-server.js";
import { createReportsMetrics } from "../metrics.js";
import {
  allReports,
  controllerFor,
  eventually,
  idle,
  namespace,
  pod,
  put,
  remove,
  requireLabelPolicy,
  useCluster,
} from "../testing/harness.js";

const WRITES = new Set(["create", "update", "update_status", "patch", "apply", "delete"]);

/** A client counting every write request it sends, of any kind. */
function writeCountingClient(sandbox: Sandbox): { client: KubeClient; writes: () => string[] } {
  const writes: string[] = [];
  const onQuery = (e: QueryEvent) => {
    if (WRITES.has(e.operation)) writes.push(`${e.operation} ${e.kind}`);
  };
  return {
    client: createKubeClient({ kubeconfigPath: sandbox.kubeconfigPath, qps: 0, onQuery }),
    writes: () => writes,
  };
}

/** A background policy with a nested foreach over a Pod's containers (n² + n foreach elements). */
function nestedForeachPolicy(name: string, ns: string) {
  const deny = { conditions: { any: [{ key: "{{ element.name }}", operator: "Equals", value: "nope" }] } };
  return {
    apiVersion: "kyverno.io/v1",
    kind: "ClusterPolicy",
    metadata: { name },
    spec: {
      validationFailureAction: "Audit",
      background: true,
      rules: [
        {
          name: "nested",
          match: { any: [{ resources: { kinds: ["Pod"], namespaces: [ns] } }] },
          validate: {
            foreach: [
              {
                list: "request.object.spec.containers",
                foreach: [{ list: "request.object.spec.containers", deny }],
              },
            ],
          },
        },
      ],
    },
  };
}

function podOf(name: string, ns: string, containers: number) {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: ns },
    spec: {
      containers: Array.from({ length: containers }, (_, i) => ({ name: `c${i}`, image: "nginx:1.27" })),
    },
  };
}

describe("rescans and expensive scans (sandbox)", { timeout: 60_000 }, () => {
  let client: KubeClient;
  let sandbox: Sandbox;
  useCluster((started) => {
    client = started.client;
    sandbox = started.sandbox;
  });

  it("a second scan of unchanged resources and policies sends no write request, also after a restart", async () => {
    await put(client, namespace("steady"));
    await put(client, pod("labelled", "steady", { labels: { tier: "web" } }));
    await put(client, pod("unlabelled", "steady"));
    await put(client, pod("other", "steady", { labels: { tier: "db" } }));
    await put(client, requireLabelPolicy("steady-tier", "tier"));

    const first = writeCountingClient(sandbox);
    const controller = controllerFor(first.client);
    await controller.start();
    await eventually(() => idle(controller) && controller.stats().created === 3, 10_000, "first scan");
    expect(first.writes()).toEqual(["create PolicyReport", "create PolicyReport", "create PolicyReport"]);

    controller.rescan();
    await eventually(() => controller.stats().scans === 2 && idle(controller), 10_000, "second scan");
    expect(controller.stats().unchanged).toBeGreaterThanOrEqual(3);
    expect(first.writes()).toHaveLength(3);
    await controller.stop();
    first.client.close();

    // A new process: it learns the reports by listing them, and finds nothing to write.
    const second = writeCountingClient(sandbox);
    const restarted = controllerFor(second.client);
    await restarted.start();
    await eventually(() => idle(restarted), 10_000, "scan after the restart");
    expect(restarted.stats().reconciled).toBeGreaterThanOrEqual(3);
    expect(second.writes()).toEqual([]);
    await restarted.stop();
    second.client.close();
    expect((await allReports(client)).filter((r) => r.metadata.namespace === "steady")).toHaveLength(3);
    await remove(client, { apiVersion: "kyverno.io/v1", kind: "ClusterPolicy", name: "steady-tier" });
  });

  it("answers /health/liveness between the policies of an expensive scan; a rule over budget is an error", async () => {
    const ns = "costly";
    // Budgets small enough for a test: 40,000 foreach elements is 199 containers nested over themselves
    // (39,800 elements, tens of ms: longer than the scan's 10 ms slice on any machine), 201 is over.
    const limits = { foreachElements: 40_000 };
    const policies = 8;
    await put(client, namespace(ns));
    await put(client, podOf("near-budget", ns, 199));
    await put(client, podOf("over-budget", ns, 201));
    for (let i = 0; i < policies; i++) await put(client, nestedForeachPolicy(`nested-${i}`, ns));

    // Counts the policies evaluated, to see where in the scan each probe was answered.
    const inner = createEngine({ limits });
    let evaluated = 0;
    const engine: Engine = {
      ...inner,
      validate(compiled, request) {
        if (request.resource.metadata?.namespace === ns) evaluated++;
        return inner.validate(compiled, request);
      },
    };
    const metrics = createReportsMetrics({ version: "test" });
    const server = createMetricsServer({ metrics });
    const { port } = await server.listen({ host: "127.0.0.1", port: 0 });
    const controller = controllerFor(client, { engine, metrics });
    const answeredAt: number[] = [];
    let probing = true;
    const prober = (async () => {
      while (probing) {
        const answer = await fetch(`http://127.0.0.1:${port}/health/liveness`);
        if (answer.status === 200 && (await answer.text()) === "ok") answeredAt.push(evaluated);
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    await controller.start();
    await eventually(() => idle(controller) && controller.stats().created === 2, 30_000, "expensive scan");
    probing = false;
    await prober;
    await controller.stop();
    await server.close();

    // Each Pod is one reconcile of 8 evaluations: probes were answered in the middle of one, not only
    // between resources.
    const perPod = policies;
    expect(evaluated).toBe(2 * perPod);
    const midResource = answeredAt.filter((n) => n % perPod !== 0);
    expect(midResource.length).toBeGreaterThan(0);

    const byPod = new Map(
      (await allReports(client)).filter((r) => r.metadata.namespace === ns).map((r) => [r.scope?.name, r]),
    );
    const results = (name: string) => (byPod.get(name)?.results ?? []).map((r) => r.result);
    expect(results("near-budget")).toEqual(Array(policies).fill("pass"));
    expect(results("over-budget")).toEqual(Array(policies).fill("error"));
    expect(byPod.get("over-budget")?.results?.[0]?.message).toMatch(/evaluation budget exceeded/);
  });
  it("yields the event loop whenever a scan has held it for a slice (injected clock and scheduler)", async () => {
    const ns = "sliced";
    const policies = 4;
    await put(client, namespace(ns));
    for (let i = 0; i < 6; i++) await put(client, pod(`p${i}`, ns));
    for (let i = 0; i < policies; i++) await put(client, requireLabelPolicy(`sliced-${i}`, `tier${i}`));

    // Every evaluation "takes" 3 ms of the injected monotonic clock; the slice is 10 ms. Each yield
    // records how many evaluations ran since the previous one.
    let monotonic = 0;
    let sinceYield = 0;
    const runs: number[] = [];
    const inner = createEngine();
    const engine: Engine = {
      ...inner,
      validate(compiled, request) {
        monotonic += 3;
        sinceYield++;
        return inner.validate(compiled, request);
      },
    };
    const clock = { ...systemClock(), monotonic: () => monotonic };
    const yieldTurn = async (): Promise<void> => {
      runs.push(sinceYield);
      sinceYield = 0;
      await new Promise((resolve) => setImmediate(resolve));
    };
    // One worker: the count since the last yield then bounds every run of the loop (two workers
    // also give the loop back at each other's API requests, which this count does not see).
    const controller = controllerFor(client, {
      engine,
      clock,
      workers: 1,
      scanSlicing: { sliceMs: 10, yieldTurn },
    });
    await controller.start();
    await eventually(
      async () =>
        idle(controller) &&
        (await allReports(client)).filter((r) => r.metadata.namespace === ns).length === 6,
      10_000,
      "sliced scan",
    );
    await controller.stop();

    // 6 Pods x 4 policies: never more than 4 evaluations (12 ms) in one run of the loop, and a yield
    // at least every 4 evaluations. A scan that held the loop would show one run of 24.
    const evaluations = runs.reduce((a, b) => a + b, 0) + sinceYield;
    expect(evaluations).toBeGreaterThanOrEqual(6 * policies);
    expect(Math.max(...runs, sinceYield)).toBeLessThanOrEqual(4);
    expect(runs.length).toBeGreaterThanOrEqual(Math.ceil(evaluations / 4) - 1);
    for (let i = 0; i < policies; i++)
      await remove(client, { apiVersion: "kyverno.io/v1", kind: "ClusterPolicy", name: `sliced-${i}` });
  });
});
