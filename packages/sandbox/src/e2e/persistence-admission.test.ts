import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as k8s from "@kubernetes/client-node";
import { KYVERNO_CRDS } from "@kyverno-ts/testing";
import { afterAll, describe, expect, it } from "vitest";
import type { AdmissionAttributes, AdmissionChain, WebhookSource } from "../admission/types.js";
import { startSandbox } from "../index.js";
import { raw } from "./raw.js";

const client = (kubeconfigPath: string): k8s.CoreV1Api => {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(kubeconfigPath);
  return kc.makeApiClient(k8s.CoreV1Api);
};

describe("persistence", () => {
  const dir = mkdtempSync(join(tmpdir(), "sandbox-data-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("keeps objects and the resourceVersion counter across a restart", async () => {
    const first = await startSandbox({
      dataDir: dir,
      crds: [`${KYVERNO_CRDS}policyreport/wgpolicyk8s.io_policyreports.yaml`],
    });
    const api = client(first.kubeconfigPath);
    await api.createNamespace({ body: { metadata: { name: "kept" } } });
    const cm = await api.createNamespacedConfigMap({
      namespace: "kept",
      body: { metadata: { name: "c" }, data: { a: "1" } },
    });
    await api.deleteNamespacedConfigMap({ namespace: "default", name: "missing" }).catch(() => undefined);
    await first.stop();

    const second = await startSandbox({ dataDir: dir });
    const api2 = client(second.kubeconfigPath);
    const back = await api2.readNamespacedConfigMap({ namespace: "kept", name: "c" });
    expect(back.data).toEqual({ a: "1" });
    expect(back.metadata?.uid).toBe(cm.metadata?.uid);
    const next = await api2.createNamespacedConfigMap({
      namespace: "kept",
      body: { metadata: { name: "d" } },
    });
    expect(Number(next.metadata?.resourceVersion)).toBeGreaterThan(Number(cm.metadata?.resourceVersion));
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(second.kubeconfigPath);
    const custom = kc.makeApiClient(k8s.CustomObjectsApi);
    const reports = await custom.listClusterCustomObject({
      group: "wgpolicyk8s.io",
      version: "v1alpha2",
      plural: "policyreports",
    });
    expect(reports.items).toEqual([]);
    await second.stop();
  });
});

describe("admission hook", () => {
  it("passes request attributes, applies mutations, surfaces denials and warnings", async () => {
    const seen: AdmissionAttributes[] = [];
    let source: WebhookSource | undefined;
    const chain = (webhooks: WebhookSource): AdmissionChain => {
      source = webhooks;
      return {
        async admit(attrs) {
          seen.push(attrs);
          const name = attrs.name;
          if (name === "denied")
            return {
              allowed: false,
              warnings: [],
              status: {
                code: 400,
                reason: "BadRequest",
                message: 'admission webhook "deny.example.com" denied the request: nope',
              },
            };
          if (
            attrs.operation === "CREATE" &&
            attrs.object !== null &&
            typeof attrs.object === "object" &&
            !Array.isArray(attrs.object)
          ) {
            const object = { ...attrs.object, data: { mutated: "yes" } };
            return { allowed: true, object, warnings: ["be careful"], auditAnnotations: {} };
          }
          return { allowed: true, object: attrs.object, warnings: [], auditAnnotations: {} };
        },
      };
    };
    const sandbox = await startSandbox({
      admission: chain,
      users: [{ username: "jane", groups: ["devs"], clusterRoles: ["cluster-admin"] }],
    });
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(sandbox.kubeconfigPath);
    kc.setCurrentContext("jane");
    const api = kc.makeApiClient(k8s.CoreV1Api);
    const created = await api.createNamespacedConfigMap({
      namespace: "default",
      body: { metadata: { name: "m", labels: { a: "b" } } },
    });
    expect(created.data).toEqual({ mutated: "yes" });
    const create = seen.find((a) => a.operation === "CREATE");
    expect(create).toMatchObject({
      kind: { group: "", version: "v1", kind: "ConfigMap" },
      resource: { group: "", version: "v1", resource: "configmaps" },
      namespace: "default",
      name: "m",
      namespaced: true,
      dryRun: false,
      user: { username: "jane", groups: ["devs", "system:authenticated"] },
      namespaceLabels: { "kubernetes.io/metadata.name": "default" },
      options: { kind: "CreateOptions", apiVersion: "meta.k8s.io/v1" },
      oldObject: null,
    });
    const warned = await raw(sandbox, "POST", "/api/v1/namespaces/default/configmaps", {
      token: sandbox.users.jane ?? "",
      contentType: "application/json",
      body: JSON.stringify({ metadata: { name: "w" } }),
    });
    expect(warned.status).toBe(201);
    expect(warned.headers.warning).toBe('299 - "be careful"');
    const denied = await api
      .createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "denied" } } })
      .then(
        () => undefined,
        (e: { code?: number; body?: string }) => e,
      );
    expect(denied?.code).toBe(400);
    expect(JSON.parse(denied?.body ?? "{}")).toMatchObject({
      message: 'admission webhook "deny.example.com" denied the request: nope',
    });
    await api.deleteNamespacedConfigMap({ namespace: "default", name: "m", dryRun: "All" });
    const del = seen.find((a) => a.operation === "DELETE");
    expect(del).toMatchObject({ dryRun: true, object: null, options: { kind: "DeleteOptions" } });
    expect((await api.readNamespacedConfigMap({ namespace: "default", name: "m" })).metadata?.name).toBe("m");
    await api.createNamespacedConfigMap({
      namespace: "default",
      body: { metadata: { name: "dry" } },
      dryRun: "All",
    });
    await expect(api.readNamespacedConfigMap({ namespace: "default", name: "dry" })).rejects.toMatchObject({
      code: 404,
    });
    const vwc = kc.makeApiClient(k8s.AdmissionregistrationV1Api);
    await vwc.createValidatingWebhookConfiguration({ body: { metadata: { name: "v" }, webhooks: [] } });
    expect(source?.validating().map((w) => (w as { metadata: { name: string } }).metadata.name)).toEqual([
      "v",
    ]);
    await sandbox.stop();
  });
});
