/**
 * End to end against the sandbox: a scan whose inputs did not change since the report was written (the
 * resource, the policies, their exceptions, the namespace's labels) evaluates nothing, also after a
 * restart (so it emits no Events either, as upstream's background controller, which skips such
 * resources); a change of any input, and the periodic (forced) rescan, evaluate again.
 */
import { createEngine, type Engine } from "@kyverno-ts/engine";
import type { KubeClient } from "@kyverno-ts/kube";
import { describe, expect, it } from "vitest";
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
import type { ReportsController } from "../types.js";

const NS = "inputs";

/** An engine counting its evaluations of resources in `NS`. */
function countingEngine(): { engine: Engine; evaluations: () => number } {
  const inner = createEngine();
  let count = 0;
  const engine: Engine = {
    ...inner,
    validate(compiled, request) {
      if (request.resource.metadata?.namespace === NS) count++;
      return inner.validate(compiled, request);
    },
  };
  return { engine, evaluations: () => count };
}

describe("scans of unchanged inputs (sandbox)", { timeout: 60_000 }, () => {
  let client: KubeClient;
  useCluster((started) => {
    client = started.client;
  });

  const results = async () =>
    new Map(
      (await allReports(client))
        .filter((r) => r.metadata.namespace === NS)
        .map((r) => [r.scope?.name, (r.results ?? []).map((x) => x.result).join(",")]),
    );
  const settled = (controller: ReportsController, what: string, check: () => boolean = () => true) =>
    eventually(() => idle(controller) && check(), 10_000, what);

  it("evaluates only what changed, after a restart too; the periodic rescan evaluates everything", async () => {
    await put(client, namespace(NS));
    await put(client, pod("labelled", NS, { labels: { tier: "web" } }));
    await put(client, pod("unlabelled", NS));
    await put(client, requireLabelPolicy("inputs-tier", "tier"));

    const first = countingEngine();
    const controller = controllerFor(client, { engine: first.engine });
    await controller.start();
    await settled(controller, "first scan", () => controller.stats().created >= 2);
    expect(first.evaluations()).toBe(2);
    await controller.stop();

    // A restart: the reports say which inputs they answer, so nothing is evaluated (nor written).
    const second = countingEngine();
    const restarted = controllerFor(client, { engine: second.engine });
    await restarted.start();
    await settled(restarted, "scan after the restart");
    expect(restarted.stats().reconciled).toBeGreaterThanOrEqual(2);
    expect(second.evaluations()).toBe(0);
    expect(restarted.stats()).toMatchObject({ created: 0, updated: 0, deleted: 0 });

    // The resource changed: only it is evaluated.
    await put(client, pod("unlabelled", NS, { labels: { tier: "db" } }));
    await settled(restarted, "the changed Pod", () => restarted.stats().updated === 1);
    expect(second.evaluations()).toBe(1);
    expect((await results()).get("unlabelled")).toBe("pass");

    // The periodic rescan evaluates every resource again (as upstream's forced rescan).
    const scans = restarted.stats().scans;
    restarted.rescan();
    await settled(restarted, "forced rescan", () => restarted.stats().scans === scans + 1);
    expect(second.evaluations()).toBe(3);

    // The policy changed: both are evaluated again.
    const changed = requireLabelPolicy("inputs-tier", "tier", { annotations: { note: "changed" } });
    await put(client, changed);
    await eventually(() => second.evaluations() === 5, 10_000, "evaluations after the policy change");
    await restarted.stop();
    await remove(client, { apiVersion: "kyverno.io/v1", kind: "ClusterPolicy", name: "inputs-tier" });
  });
});
