/**
 * End to end against the sandbox API server with Kyverno's policy CRDs: the reporter watches
 * ClusterPolicy and Policy objects and serves their details; changes and deletes follow.
 */
import { readFileSync } from "node:fs";
import { type JsonObject, parseDocuments } from "@kyverno-ts/api";
import { createKubeClient, type KubeClient } from "@kyverno-ts/kube";
import { type Sandbox, startSandbox } from "@kyverno-ts/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningReporter, startReporter } from "../app/reporter.js";
import { eventually, POLICY_REPORT_CRDS, testConfig } from "../testing/cluster.js";

const KYVERNO_CRDS = new URL("../../../../../shared/reference/kyverno-crds/kyverno/", import.meta.url)
  .pathname;
const bundled = (name: string): JsonObject =>
  parseDocuments(readFileSync(new URL(`../../../../policies/${name}.yaml`, import.meta.url), "utf8"), name)
    .documents[0]?.value as JsonObject;

describe("policy details from the cluster", { timeout: 30_000 }, () => {
  let sandbox: Sandbox;
  let client: KubeClient;
  let reporter: RunningReporter;
  const details = async (path: string) => {
    const res = await fetch(`${reporter.url}/v2/policy-details${path}`);
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  beforeAll(async () => {
    sandbox = await startSandbox({
      crds: [
        ...POLICY_REPORT_CRDS,
        `${KYVERNO_CRDS}kyverno.io_clusterpolicies.yaml`,
        `${KYVERNO_CRDS}kyverno.io_policies.yaml`,
      ],
      admission: false,
    });
    client = createKubeClient({ kubeconfigPath: sandbox.kubeconfigPath, qps: 0 });
    const created = await client.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "shop" } });
    expect(created.ok).toBe(true);
    // Present before the reporter starts: listed at start.
    expect((await client.create(bundled("disallow-latest-tag"))).ok).toBe(true);
    reporter = await startReporter({
      config: testConfig(),
      client,
      port: 0,
      host: "127.0.0.1",
      sqlitePath: ":memory:",
      retryDelay: () => 50,
    });
    await reporter.synced;
  });
  afterAll(async () => {
    await reporter?.stop();
    client?.close();
    await sandbox?.stop();
  });

  it("serves listed, created, changed and deleted policies", async () => {
    const listed = await eventually(async () => {
      const got = await details("/disallow-latest-tag");
      return got.status === 200 ? got.body : undefined;
    });
    expect(listed).toMatchObject({
      kind: "ClusterPolicy",
      title: "Disallow Latest Tag",
      category: "Best Practices",
      severity: "medium",
      rules: [
        { name: "require-image-tag", type: "validate" },
        { name: "validate-image-tag", type: "validate" },
      ],
    });
    const yaml = (listed.code as { content: string }).content;
    expect(yaml).toContain("apiVersion: kyverno.io/v1\nkind: ClusterPolicy\n");
    expect(yaml).not.toContain("managedFields");
    expect((await details("")).body).toMatchObject({ watched: ["ClusterPolicy", "Policy"] });

    const namespaced = {
      apiVersion: "kyverno.io/v1",
      kind: "Policy",
      metadata: {
        name: "require-team",
        namespace: "shop",
        annotations: { "policies.kyverno.io/description": "Shop workloads name their team." },
      },
      spec: {
        validationFailureAction: "Enforce",
        rules: [
          {
            name: "check-team",
            match: { any: [{ resources: { kinds: ["Pod"] } }] },
            validate: { message: "team label", pattern: { metadata: { labels: { team: "?*" } } } },
          },
        ],
      },
    };
    expect((await client.create(namespaced)).ok).toBe(true);
    const created = await eventually(async () => {
      const got = await details("/shop/require-team");
      return got.status === 200 ? got.body : undefined;
    });
    expect(created).toMatchObject({
      policy: "shop/require-team",
      description: "Shop workloads name their team.",
      failureActions: ["Enforce"],
    });

    const current = await client.get<JsonObject>({
      apiVersion: "kyverno.io/v1",
      kind: "Policy",
      name: "require-team",
      namespace: "shop",
    });
    if (!current.ok) throw new Error(current.message);
    const changed: JsonObject = {
      ...current.value,
      spec: { ...namespaced.spec, validationFailureAction: "Audit" },
    };
    expect((await client.update(changed)).ok).toBe(true);
    await eventually(
      async () => (await details("/shop/require-team")).body.validationFailureAction === "Audit",
    );

    const deleted = await client.delete({
      apiVersion: "kyverno.io/v1",
      kind: "ClusterPolicy",
      name: "disallow-latest-tag",
    });
    expect(deleted.ok).toBe(true);
    const gone = await eventually(async () => {
      const got = await details("/disallow-latest-tag");
      return got.status === 404 ? got.body : undefined;
    });
    expect(gone).toMatchObject({ code: "POLICY_NOT_FOUND" });
  });
});
