/**
 * End to end against the sandbox: the reports controller watches Kyverno's ConfigMap (resources its
 * `resourceFilters` cover get no report; an edit applies without a restart), and a policy labelled
 * `reports.kyverno.io/disabled` contributes to no report, as upstream.
 */
import type { KubeClient } from "@kyverno-ts/kube";
import { describe, expect, it } from "vitest";
import { DEFAULT_RESOURCE_FILTERS } from "../../admission/filters.js";
import {
  allReports,
  controllerFor,
  eventually,
  namespace,
  pod,
  put,
  requireLabelPolicy,
  useCluster,
} from "../testing/harness.js";

const configMap = (resourceFilters: string) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "kyverno", namespace: "kyverno" },
  data: { resourceFilters, excludeGroups: "system:nodes" },
});

const outcomes = async (client: KubeClient, ns: string) =>
  (await allReports(client))
    .filter((r) => r.metadata.namespace === ns)
    .flatMap((r) => (r.results ?? []).map((x) => `${r.scope?.name} ${x.policy}=${x.result}`))
    .sort();

describe("reports controller: Kyverno's ConfigMap and disabled reports (sandbox)", {
  timeout: 60_000,
}, () => {
  let client: KubeClient;
  useCluster((started) => {
    ({ client } = started);
  });

  it("drops and restores reports as resourceFilters change, without a restart", async () => {
    await put(client, namespace("kyverno"));
    await put(client, namespace("web"));
    await put(client, configMap(DEFAULT_RESOURCE_FILTERS));
    await put(client, requireLabelPolicy("require-team", "team"));
    await put(client, pod("frontend", "web"));
    const controller = controllerFor(client, { kyvernoConfigMap: { namespace: "kyverno", name: "kyverno" } });
    await controller.start();
    try {
      await eventually(async () => (await outcomes(client, "web")).length === 1, 15_000, "first scan");
      expect(await outcomes(client, "web")).toEqual(["frontend require-team=fail"]);

      await put(client, configMap(`${DEFAULT_RESOURCE_FILTERS} [Pod,web,*]`));
      await eventually(async () => (await outcomes(client, "web")).length === 0, 15_000, "report dropped");

      await put(client, configMap(DEFAULT_RESOURCE_FILTERS));
      await eventually(async () => (await outcomes(client, "web")).length === 1, 15_000, "report restored");
    } finally {
      await controller.stop();
    }
  });

  it("keeps a policy labelled reports.kyverno.io/disabled out of every report", async () => {
    await put(client, namespace("shop"));
    await put(client, pod("cart", "shop"));
    const quiet = requireLabelPolicy("require-owner", "owner");
    await put(client, {
      ...quiet,
      metadata: { ...quiet.metadata, labels: { "reports.kyverno.io/disabled": "true" } },
    });
    const controller = controllerFor(client);
    await controller.start();
    try {
      await eventually(async () => (await outcomes(client, "shop")).length > 0, 15_000, "scan");
      // Let the scan finish: the disabled policy would have added its result by then.
      await eventually(() => controller.stats().queued === 0 && controller.stats().inFlight === 0);
      expect(await outcomes(client, "shop")).toEqual(["cart require-team=fail"]);
    } finally {
      await controller.stop();
    }
  });
});
