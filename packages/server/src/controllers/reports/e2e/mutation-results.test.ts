/**
 * End to end against the sandbox, in process (the playground's hand-over): the mutating webhook's
 * results of a CREATE name the object before it has a uid; the reports controller looks it up once
 * stored and merges the mutate rows beside the validate rows of the same policy.
 */
import type { KubeObject, Policy } from "@kyverno-ts/api";
import { createEngine } from "@kyverno-ts/engine";
import type { KubeClient } from "@kyverno-ts/kube";
import { describe, expect, it } from "vitest";
import { createBoundedResultQueue } from "../../../admission/results.js";
import { allReports, controllerFor, eventually, namespace, put, useCluster } from "../testing/harness.js";

const POLICY = {
  apiVersion: "kyverno.io/v1",
  kind: "ClusterPolicy",
  metadata: { name: "owner-label" },
  spec: {
    background: false,
    validationFailureAction: "Audit",
    rules: [
      {
        name: "add-owner",
        match: { any: [{ resources: { kinds: ["ConfigMap"] } }] },
        mutate: { patchStrategicMerge: { metadata: { labels: { owner: "platform" } } } },
      },
      {
        name: "require-team",
        match: { any: [{ resources: { kinds: ["ConfigMap"] } }] },
        validate: { message: "team required", pattern: { metadata: { labels: { team: "?*" } } } },
      },
    ],
  },
} as unknown as Policy;

describe("reports controller: the mutating webhook's results, in process (sandbox)", {
  timeout: 30_000,
}, () => {
  let client: KubeClient;
  useCluster((started) => {
    ({ client } = started);
  });

  it("merges a CREATE's mutate results once the object is stored, beside the validate results", async () => {
    await put(client, namespace("mut"));
    await put(client, POLICY as unknown as KubeObject);
    const results = createBoundedResultQueue({ capacity: 100 });
    const controller = controllerFor(client, { admissionResults: results });
    await controller.start();

    const engine = createEngine();
    const compiled = engine.compile(POLICY);
    if (!compiled.ok) throw new Error("policy");
    const admitted: KubeObject = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "settings", namespace: "mut" },
      data: { a: "1" },
    };
    const mutated = engine.mutate(compiled.policy, { resource: admitted, operation: "CREATE" });
    const resource = { apiVersion: "v1", kind: "ConfigMap", namespace: "mut", name: "settings" };
    // The mutating webhook answers before the API server stores the object (and gives it a uid).
    results.offer({
      uid: "request-1",
      timestamp: Date.now(),
      operation: "CREATE",
      resource: { ...resource, uid: "" },
      responses: [mutated],
      phase: "mutate",
    });
    const stored = await put(client, mutated.patchedResource as KubeObject);
    const validated = engine.validate(compiled.policy, { resource: stored, operation: "CREATE" });
    results.offer({
      uid: "request-1",
      timestamp: Date.now(),
      operation: "CREATE",
      resource: { ...resource, uid: String(stored.metadata?.uid) },
      responses: [validated],
    });

    const rows = async () =>
      (await allReports(client))
        .flatMap((r) => r.results ?? [])
        .map((r) => `${r.rule}=${r.result} ${r.message}`)
        .sort();
    await eventually(async () => (await rows()).length === 2, 10_000, "both rows");
    expect(await rows()).toEqual([
      "add-owner=pass mutated ConfigMap/settings in namespace mut",
      "require-team=fail validation error: team required. rule require-team failed at path /metadata/labels/team/",
    ]);
    await controller.stop();
  });
});
