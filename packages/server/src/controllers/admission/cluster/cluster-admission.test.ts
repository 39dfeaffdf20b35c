/**
 * The cluster mode in process against the sandbox (webhooks reached through the Service, resolved to
 * this controller's port): certificates renewed before expiry and hot-reloaded, a configuration
 * deleted by hand restored, status of a policy that cannot be loaded, the ConfigMap, namespace labels
 * from the informer, and PolicyExceptions.
 */
import { X509Certificate } from "node:crypto";
import { connect } from "node:tls";
import type { JsonValue, KubeObject } from "@kyverno-ts/api";
import { createKubeClient, type KubeClient } from "@kyverno-ts/kube";
import { type Sandbox, startSandbox } from "@kyverno-ts/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "../../../clock.js";
import { KYVERNO_CRDS, policyReady, read, until } from "../../../testing/cluster.js";
import { recordingLogger } from "../../../testing/fixtures.js";
import { generateCertificateAuthority, issueServingCertificate } from "../../certificates/certificates.js";
import {
  readTlsSecret,
  servingHosts,
  splitPem,
  tlsSecret,
  tlsSecretNames,
} from "../../certificates/tls-secrets.js";
import type { WebhookConfigurationJson } from "../../webhooks/webhook-configs.js";
import { type ClusterAdmission, startClusterAdmission } from "./cluster-admission.js";

const NAMES = tlsSecretNames("kyverno-svc", "kyverno");
const VALIDATING = {
  apiVersion: "admissionregistration.k8s.io/v1",
  kind: "ValidatingWebhookConfiguration",
  name: "kyverno-resource-validating-webhook-cfg",
};

const clusterPolicy = (name: string, spec: JsonValue): KubeObject => ({
  apiVersion: "kyverno.io/v1",
  kind: "ClusterPolicy",
  metadata: { name },
  spec,
});

const PRIVILEGED_RULE = {
  name: "privileged",
  match: { any: [{ resources: { kinds: ["Pod"], namespaceSelector: { matchLabels: { env: "prod" } } } }] },
  validate: {
    message: "privileged mode is not allowed",
    pattern: { spec: { containers: [{ "=(securityContext)": { "=(privileged)": "false" } }] } },
  },
};

const pod = (name: string, namespace: string): KubeObject => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name, namespace },
  spec: { containers: [{ name: "app", image: "nginx:1.27", securityContext: { privileged: true } }] },
});

/** The certificate the controller presents to a TLS client. */
function servedCertificate(port: number): Promise<X509Certificate> {
  return new Promise((resolve, reject) => {
    const socket = connect(
      { host: "127.0.0.1", port, servername: "kyverno-svc.kyverno.svc", rejectUnauthorized: false },
      () => {
        const cert = socket.getPeerX509Certificate();
        socket.destroy();
        if (cert) resolve(cert);
        else reject(new Error("no certificate"));
      },
    );
    socket.on("error", reject);
  });
}

describe("cluster mode (in process)", () => {
  let sandbox: Sandbox;
  let client: KubeClient;
  let admission: ClusterAdmission;
  let expiringCa: string;
  const logger = recordingLogger();

  /** A dry-run Pod in namespace `ctx`: "admitted", or the API server's refusal. */
  const attempt = async (name: string, image: string): Promise<string> => {
    const result = await client.create(
      {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name, namespace: "ctx" },
        spec: { containers: [{ name: "app", image }] },
      },
      { dryRun: true },
    );
    return result.ok ? "admitted" : result.message;
  };

  const denied = async (name: string, namespace: string): Promise<boolean> => {
    const result = await client.create(pod(name, namespace), { dryRun: true });
    return !result.ok && result.message.includes("privileged mode is not allowed");
  };

  beforeAll(async () => {
    sandbox = await startSandbox({
      crds: KYVERNO_CRDS,
      resolveService: () => `https://127.0.0.1:${admission?.port ?? 1}`,
    });
    client = createKubeClient({ kubeconfigPath: sandbox.kubeconfigPath, qps: 0 });
    for (const [name, labels] of [
      ["kyverno", {}],
      ["prod", { env: "prod" }],
      ["dev", { env: "dev" }],
    ] as const)
      await client.create({ apiVersion: "v1", kind: "Namespace", metadata: { name, labels: { ...labels } } });
    // Left by an earlier installation: a CA 10 days from expiry (inside the 15-day renewal window).
    const clock = { now: () => Date.now() };
    const ca = await generateCertificateAuthority({ clock, validityDays: 10 });
    const pair = await issueServingCertificate({ ca, hosts: servingHosts("kyverno-svc", "kyverno"), clock });
    expiringCa = ca.certPem;
    await client.create(tlsSecret(NAMES.ca, "kyverno", ca));
    await client.create(tlsSecret(NAMES.pair, "kyverno", pair));
    // Created while no webhook checked policies: it cannot be loaded.
    await client.create(
      clusterPolicy("unloadable", {
        rules: [
          { name: "r", match: { any: [{ resources: { kinds: ["Pod"] } }] }, validate: { message: "m" } },
        ],
      }),
    );
    admission = await startClusterAdmission({
      kube: { kubeconfigPath: sandbox.kubeconfigPath, qps: 0 },
      namespace: "kyverno",
      serviceName: "kyverno-svc",
      policyExceptions: { enabled: true, namespace: "prod" },
      identity: "in-process",
      leaderElection: false,
      host: "127.0.0.1",
      port: 0,
      metricsPort: 0,
      clock: systemClock(),
      logger,
    });
    await client.create(
      clusterPolicy("deny-privileged", { validationFailureAction: "Enforce", rules: [PRIVILEGED_RULE] }),
    );
    await policyReady(client, "deny-privileged");
  }, 30_000);
  afterAll(async () => {
    await admission?.close();
    client?.close();
    await sandbox?.stop();
  });

  it("renews a CA close to expiry, keeps the old one in the bundle, and hot-reloads the new pair", async () => {
    const caSecret = await read(client, {
      apiVersion: "v1",
      kind: "Secret",
      namespace: "kyverno",
      name: NAMES.ca,
    });
    const cas = splitPem(readTlsSecret(caSecret)?.certPem ?? "");
    expect(cas).toHaveLength(2);
    expect(cas[1]?.trim()).toBe(expiringCa.trim());
    const current = new X509Certificate(cas[0] ?? "");
    const webhook = (await read(client, VALIDATING)) as unknown as WebhookConfigurationJson;
    const bundle = Buffer.from(webhook.webhooks[0]?.clientConfig.caBundle ?? "", "base64").toString();
    expect(splitPem(bundle)).toEqual(cas);
    await until(
      async () => (await servedCertificate(admission.port)).checkIssued(current),
      10_000,
      "new pair served",
    );
    const before = (await servedCertificate(admission.port)).fingerprint256;

    // A pair deleted by hand is reissued at once and served without a restart.
    await client.delete({ apiVersion: "v1", kind: "Secret", namespace: "kyverno", name: NAMES.pair });
    await until(
      async () => (await servedCertificate(admission.port)).fingerprint256 !== before,
      10_000,
      "reissued",
    );
    expect(await denied("still-checked", "prod")).toBe(true);
  });

  it("restores a webhook configuration deleted by hand", async () => {
    await client.delete(VALIDATING);
    await until(async () => (await read(client, VALIDATING)) !== undefined, 10_000, "configuration restored");
    await until(() => denied("restored", "prod"), 10_000, "enforced again");
  });

  it("reports a policy that cannot be loaded as not ready, with the reason", async () => {
    const policy = await read(client, {
      apiVersion: "kyverno.io/v1",
      kind: "ClusterPolicy",
      name: "unloadable",
    });
    expect(policy?.status).toMatchObject({
      ready: false,
      conditions: [{ type: "Ready", status: "False", reason: "Failed" }],
    });
    const message = (policy?.status as { conditions: Array<{ message: string }> } | undefined)?.conditions[0]
      ?.message;
    expect(message).toContain("spec.rules[0].validate");
  });

  it("loads namespaced Policies and writes their status", async () => {
    await client.create({
      apiVersion: "kyverno.io/v1",
      kind: "Policy",
      metadata: { name: "team-policy", namespace: "dev" },
      spec: {
        validationFailureAction: "Enforce",
        rules: [
          { ...PRIVILEGED_RULE, name: "dev-privileged", match: { any: [{ resources: { kinds: ["Pod"] } }] } },
        ],
      },
    });
    const ready = await policyReady(client, "team-policy", { namespace: "dev" });
    expect(ready.status).toMatchObject({ ready: true, rulecount: { validate: 3 } });
    expect(await denied("namespaced", "dev")).toBe(true);
    await client.delete({
      apiVersion: "kyverno.io/v1",
      kind: "Policy",
      namespace: "dev",
      name: "team-policy",
    });
    await until(async () => !(await denied("namespaced", "dev")), 5000, "namespaced policy removed");
  });

  it("reads namespace labels from the Namespace informer", async () => {
    expect(await denied("a", "prod")).toBe(true);
    expect(await denied("b", "dev")).toBe(false);
    const dev = await read(client, { apiVersion: "v1", kind: "Namespace", name: "dev" });
    await client.update({ ...dev, metadata: { ...dev?.metadata, labels: { env: "prod" } } } as KubeObject);
    await until(() => denied("c", "dev"), 5000, "relabelled namespace checked");
  });

  it("applies PolicyExceptions from the informer", async () => {
    await client.create({
      apiVersion: "kyverno.io/v2",
      kind: "PolicyException",
      metadata: { name: "debug-pod", namespace: "prod" },
      spec: {
        exceptions: [{ policyName: "deny-privileged", ruleNames: ["privileged"] }],
        match: { any: [{ resources: { kinds: ["Pod"], names: ["debugger"], namespaces: ["prod"] } }] },
      },
    });
    await until(async () => !(await denied("debugger", "prod")), 5000, "exception applied");
    expect(await denied("other", "prod")).toBe(true);
  });

  it("follows Kyverno's ConfigMap: resourceFilters narrow the namespaceSelector and skip requests", async () => {
    await client.create({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "kyverno", namespace: "kyverno" },
      data: { resourceFilters: "[*/*,dev,*] [Pod,prod,skipped-*]", excludeGroups: "system:nodes" },
    });
    await until(
      async () => {
        const webhook = (await read(client, VALIDATING)) as unknown as WebhookConfigurationJson;
        return webhook.webhooks[0]?.namespaceSelector.matchExpressions?.[0]?.values?.includes("dev") === true;
      },
      5000,
      "namespaceSelector updated",
    );
    expect(await denied("skipped-pod", "prod")).toBe(false);
    expect(await denied("d", "dev")).toBe(false);
    expect(await denied("e", "prod")).toBe(true);
  });

  it("loads ConfigMap and API call context entries for each request, fresh, before deciding", async () => {
    await client.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "ctx" } });
    await client.create({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "registries", namespace: "ctx" },
      data: { allowed: "nginx:1.27,ghcr.io/acme/app:1" },
    });
    await client.create(
      clusterPolicy("allowed-images", {
        validationFailureAction: "Enforce",
        rules: [
          {
            name: "images",
            match: { any: [{ resources: { kinds: ["Pod"], namespaces: ["ctx"] } }] },
            context: [{ name: "registries", configMap: { name: "registries", namespace: "ctx" } }],
            validate: {
              message: "image {{ request.object.spec.containers[0].image }} is not allowed",
              deny: {
                conditions: {
                  all: [
                    {
                      key: "{{ request.object.spec.containers[0].image }}",
                      operator: "AnyNotIn",
                      value: "{{ split(registries.data.allowed, ',') }}",
                    },
                  ],
                },
              },
            },
          },
          {
            name: "no-services",
            match: { any: [{ resources: { kinds: ["Pod"], namespaces: ["ctx"] } }] },
            context: [
              {
                name: "services",
                apiCall: {
                  urlPath: "/api/v1/namespaces/{{ request.namespace }}/services",
                  jmesPath: "items | length(@)",
                },
              },
            ],
            validate: {
              message: "namespace {{ request.namespace }} has {{ services }} services",
              deny: { conditions: { any: [{ key: "{{ services }}", operator: "GreaterThan", value: 0 }] } },
            },
          },
        ],
      }),
    );
    await policyReady(client, "allowed-images");
    expect(await attempt("a", "nginx:1.27")).toBe("admitted");
    expect(await attempt("b", "evil:1")).toContain("images: image evil:1 is not allowed");
    const registries = await read(client, {
      apiVersion: "v1",
      kind: "ConfigMap",
      name: "registries",
      namespace: "ctx",
    });
    await client.update({ ...registries, data: { allowed: "nginx:1.27,evil:1" } } as KubeObject);
    // No cache between requests: the next request reads the new ConfigMap.
    expect(await attempt("c", "evil:1")).toBe("admitted");
    await client.create({
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "web", namespace: "ctx" },
      spec: { ports: [{ port: 80 }] },
    });
    expect(await attempt("d", "nginx:1.27")).toContain("no-services: namespace ctx has 1 services");
  });

  it("reads ConfigMaps labelled cache.kyverno.io/enabled from its informer, without a request each time", async () => {
    const configMapGets = async (): Promise<number> => {
      const text = await (await fetch(`http://127.0.0.1:${admission.metricsPort}/metrics`)).text();
      return text
        .split("\n")
        .filter(
          (l) =>
            l.startsWith("kyverno_client_queries_total{") &&
            l.includes('"ConfigMap"') &&
            l.includes('"ctx"') &&
            l.includes('"get"'),
        )
        .reduce((n, l) => n + Number(l.slice(l.lastIndexOf(" ") + 1)), 0);
    };
    await client.delete({ apiVersion: "v1", kind: "Service", name: "web", namespace: "ctx" });
    const before = await configMapGets();
    expect(await attempt("e", "evil:1")).toBe("admitted");
    expect(await configMapGets()).toBe(before + 1);
    const registries = await read(client, {
      apiVersion: "v1",
      kind: "ConfigMap",
      name: "registries",
      namespace: "ctx",
    });
    await client.update({
      ...registries,
      metadata: { ...registries?.metadata, labels: { "cache.kyverno.io/enabled": "true" } },
      data: { allowed: "nginx:1.27" },
    } as KubeObject);
    // Once the informer holds the labelled ConfigMap, requests stop fetching it.
    await until(
      async () => {
        const gets = await configMapGets();
        await attempt("f", "nginx:1.27");
        return (await configMapGets()) === gets;
      },
      5000,
      "ConfigMap served from the informer",
    );
    const cached = await configMapGets();
    expect(await attempt("g", "nginx:1.27")).toBe("admitted");
    expect(await attempt("h", "evil:1")).toContain("images: image evil:1 is not allowed");
    expect(await configMapGets()).toBe(cached);
  });
});
