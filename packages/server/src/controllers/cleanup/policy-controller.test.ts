/**
 * The policy controller on a fake clock against the sandbox API server: a five-field schedule
 * (`*\/5 * * * *`) runs at its occurrence and not before, without the test waiting five minutes.
 */
import { fileURLToPath } from "node:url";
import type { KubeObject } from "@kyverno-ts/api";
import { createEngine } from "@kyverno-ts/engine";
import { createKubeClient, type KubeClient } from "@kyverno-ts/kube";
import { type Sandbox, startSandbox } from "@kyverno-ts/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKindResolver } from "../../cluster-state/kinds.js";
import { createScanContext } from "../../external-data/scan-context.js";
import { read, until } from "../../testing/cluster.js";
import { fakeClock, recordingLogger } from "../../testing/fixtures.js";
import { createCleanupEvents } from "./events.js";
import { executionDecision, executionTimeText } from "./execution-time.js";
import { createCleanupMetrics } from "./metrics.js";
import { createPolicyController } from "./policy-controller.js";
import { runCleanupPolicy } from "./policy-run.js";

const CRD_DIR = new URL("../../../../../../shared/reference/kyverno-crds/kyverno/", import.meta.url);
const CRDS = ["kyverno.io_cleanuppolicies.yaml", "kyverno.io_clustercleanuppolicies.yaml"].map((f) =>
  fileURLToPath(new URL(f, CRD_DIR)),
);

describe("cleanup policy schedule on a fake clock", () => {
  let sandbox: Sandbox;
  let client: KubeClient;
  beforeAll(async () => {
    sandbox = await startSandbox({ crds: CRDS });
    client = createKubeClient({ kubeconfigPath: sandbox.kubeconfigPath, qps: 0 });
    await client.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "team" } });
  }, 30_000);
  afterAll(async () => {
    client?.close();
    await sandbox?.stop();
  });

  it("runs a five-field schedule at its occurrence, then records lastExecutionTime", async () => {
    for (const [name, labels] of [
      ["temp", { temporary: "true" }],
      ["stays", {}],
    ] as const)
      await client.create({
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name, namespace: "team", labels },
        spec: { containers: [{ name: "c", image: "nginx" }] },
      });
    const created = await client.create<KubeObject>({
      apiVersion: "kyverno.io/v2",
      kind: "ClusterCleanupPolicy",
      metadata: { name: "every-five" },
      spec: {
        schedule: "*/5 * * * *",
        match: { any: [{ resources: { kinds: ["Pod"], selector: { matchLabels: { temporary: "true" } } } }] },
      },
    });
    if (!created.ok) throw new Error(created.message);
    const clock = fakeClock(0, new Date());
    const logger = recordingLogger();
    const metrics = createCleanupMetrics();
    const context = createScanContext({ client, monotonic: () => clock.monotonic() });
    const deps = {
      client,
      engine: createEngine({ clock: clock, contextLoader: context.loader }),
      context,
      kinds: createKindResolver({ client }),
      namespaceLabels: () => ({}),
      metrics,
      events: createCleanupEvents({ record: () => {} }),
      logger,
    };
    const controller = createPolicyController({
      client,
      clock,
      logger,
      metrics,
      run: (policy, signal) => runCleanupPolicy(deps, policy, signal),
    });
    const term = new AbortController();
    await controller.start();
    controller.lead(term.signal);
    const pod = (name: string) => read(client, { apiVersion: "v1", kind: "Pod", namespace: "team", name });
    const lastExecution = async () => {
      const policy = await read(client, {
        apiVersion: "kyverno.io/v2",
        kind: "ClusterCleanupPolicy",
        name: "every-five",
      });
      return (policy?.status as { lastExecutionTime?: string } | undefined)?.lastExecutionTime;
    };

    const first = executionDecision(created.value, clock.now());
    if (first.type !== "wait") throw new Error(`expected to wait, got ${first.type}`);
    expect(new Date(first.at).getUTCMinutes() % 5).toBe(0);
    // Just before the occurrence nothing is deleted.
    clock.advance(first.at - clock.now() - 1000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await pod("temp")).toBeDefined();

    clock.advance(1000);
    await until(async () => (await pod("temp")) === undefined, 10_000, "the matching Pod deleted");
    expect(await pod("stays")).toBeDefined();
    await until(
      async () => (await lastExecution()) === executionTimeText(first.at),
      10_000,
      "lastExecutionTime of the first run",
    );

    // The next run is five minutes later.
    clock.advance(5 * 60_000);
    await until(
      async () => (await lastExecution()) === executionTimeText(first.at + 5 * 60_000),
      10_000,
      "lastExecutionTime of the second run",
    );
    term.abort();
    await controller.stop();
  }, 40_000);
});
