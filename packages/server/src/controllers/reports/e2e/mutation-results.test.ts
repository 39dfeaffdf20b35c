/**
 * End to end against the sandbox, in process (the playground's hand-over): the mutating webhook's
 * results of a CREATE name the object before it has a uid; the reports controller looks it up once
 * stored and merges the mutate rows beside the validate rows of the same policy.
 */
import type { KubeObject, Policy } from "@kyverno-ts/api";
import { createEngine } from "@kyverno-ts/engine";
import type { KubeClient } from "@kyverno-ts/kube";
import { describe, expect, it } from "vitest";
import { createBoundedResultQueue } from "../../admission/results.js";
import {
  allReports,
  controllerFor,
  eventually,
  idle,
  namespace,
  put,
  useCluster,
} from "../testing/harness.js";

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

  it("keeps mutate rows across a restart of the reports controller: read back from the report", async () => {
    await put(client, namespace("keep"));
    const scanned = {
      ...POLICY,
      metadata: { name: "scanned-owner" },
      spec: { ...POLICY.spec, background: true },
    } as Policy;
    const mutateOnly = {
      apiVersion: "kyverno.io/v1",
      kind: "ClusterPolicy",
      metadata: { name: "stamp" },
      spec: {
        rules: [
          {
            name: "add-stamp",
            match: { any: [{ resources: { kinds: ["ConfigMap"], namespaces: ["keep"] } }] },
            mutate: { patchStrategicMerge: { metadata: { annotations: { stamped: "yes" } } } },
          },
        ],
      },
    } as unknown as Policy;
    await put(client, scanned as unknown as KubeObject);
    await put(client, mutateOnly as unknown as KubeObject);
    const results = createBoundedResultQueue({ capacity: 100 });
    const first = controllerFor(client, { admissionResults: results });
    await first.start();

    const engine = createEngine();
    const stored = await put(client, {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "kept", namespace: "keep" },
      data: { a: "1" },
    });
    const responses = [scanned, mutateOnly].map((p) => {
      const compiled = engine.compile(p);
      if (!compiled.ok) throw new Error(p.metadata.name);
      return engine.mutate(compiled.policy, { resource: stored, operation: "CREATE" });
    });
    results.offer({
      uid: "request-2",
      timestamp: Date.now(),
      operation: "CREATE",
      resource: {
        apiVersion: "v1",
        kind: "ConfigMap",
        namespace: "keep",
        name: "kept",
        uid: String(stored.metadata?.uid),
      },
      responses,
      phase: "mutate",
    });
    const rows = async () =>
      (await allReports(client))
        .filter((r) => r.metadata.namespace === "keep" && r.scope?.name === "kept")
        .flatMap((r) => r.results ?? [])
        .map((r) => `${r.policy}/${r.rule}=${r.result} (${r.properties?.process})`)
        .sort();
    const mutateRows = [
      "scanned-owner/add-owner=pass (admission review)",
      "stamp/add-stamp=pass (admission review)",
    ];
    await eventually(async () => (await rows()).length === 3, 10_000, "mutate and scan rows");
    expect(await rows()).toEqual([...mutateRows, "scanned-owner/require-team=fail (background scan)"].sort());
    await first.stop();

    // A new controller has no admission results in memory: it scans again and keeps the mutate rows.
    const second = controllerFor(client);
    await second.start();
    await eventually(() => idle(second), 10_000, "second scan");
    expect(await rows()).toEqual([...mutateRows, "scanned-owner/require-team=fail (background scan)"].sort());
    // A change the scan answers rewrites the report: the mutate rows are still in it.
    await put(client, {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "kept", namespace: "keep", labels: { team: "a" } },
      data: { a: "1" },
    });
    await eventually(
      async () => (await rows()).includes("scanned-owner/require-team=pass (background scan)"),
      10_000,
      "rescan",
    );
    expect(await rows()).toEqual([...mutateRows, "scanned-owner/require-team=pass (background scan)"].sort());
    await second.stop();
  });

  it("reports only the rule types --enableReporting names: mutate rows without the scan's validate rows", async () => {
    await put(client, namespace("quiet"));
    const policy = {
      ...POLICY,
      metadata: { name: "quiet-owner" },
      spec: { ...POLICY.spec, background: true },
    } as Policy;
    await put(client, policy as unknown as KubeObject);
    const results = createBoundedResultQueue({ capacity: 100 });
    const controller = controllerFor(client, { admissionResults: results, reporting: new Set(["mutate"]) });
    await controller.start();
    const stored = await put(client, {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "quiet", namespace: "quiet" },
      data: { a: "1" },
    });
    const engine = createEngine();
    const compiled = engine.compile(policy);
    if (!compiled.ok) throw new Error("policy");
    results.offer({
      uid: "request-3",
      timestamp: Date.now(),
      operation: "CREATE",
      resource: {
        apiVersion: "v1",
        kind: "ConfigMap",
        namespace: "quiet",
        name: "quiet",
        uid: String(stored.metadata?.uid),
      },
      responses: [engine.mutate(compiled.policy, { resource: stored, operation: "CREATE" })],
      phase: "mutate",
    });
    const rows = async () =>
      (await allReports(client))
        .filter((r) => r.metadata.namespace === "quiet")
        .flatMap((r) => (r.results ?? []).map((x) => `${r.scope?.name} ${x.policy}/${x.rule}=${x.result}`))
        .sort();
    await eventually(async () => (await rows()).length > 0, 10_000, "mutate row");
    await eventually(() => idle(controller), 10_000, "scan");
    // The background scan would fail require-team on both ConfigMaps (kube-root-ca.crt too): not reported.
    expect(await rows()).toEqual(["quiet quiet-owner/add-owner=pass"]);
    await controller.stop();
  });
});
