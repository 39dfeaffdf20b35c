/**
 * End to end: `kyverno-ts cleanup` (in process, `--serverIP 127.0.0.1`) against the sandbox API
 * server with the upstream cleanup policy CRDs, driven by the real kubectl as a user would: the
 * replica leads on the `kyverno-cleanup-controller` Lease and answers its probes; an invalid cleanup
 * policy is rejected at `kubectl apply` with its field path, a ClusterCleanupPolicy (conditions with a
 * context entry) deletes the Pods it matches on its schedule and records `lastExecutionTime`, a Pod labelled
 * `cleanup.kyverno.io/ttl: 5s` is gone after expiry, and an unreadable TTL value is reported (a
 * warning at `kubectl apply`, an error in the controller's log) and the Pod is kept; a DeletingPolicy
 * (CEL) deletes the Pods its conditions select.
 */
import { get as httpsGet } from "node:https";
import { fileURLToPath } from "node:url";
import type { KubeClient } from "@kyverno-ts/kube";
import { kubectlAvailable } from "@kyverno-ts/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { read, until } from "../../../testing/cluster.js";
import { type E2eCluster, startE2eCluster } from "../../../testing/e2e-cluster.js";
import { recordingLogger } from "../../../testing/fixtures.js";

const CRD_DIR = new URL("../../../../../../../shared/reference/kyverno-crds/kyverno/", import.meta.url);
const CRDS = [
  "kyverno.io_cleanuppolicies.yaml",
  "kyverno.io_clustercleanuppolicies.yaml",
  "../policies.kyverno.io/policies.kyverno.io_deletingpolicies.yaml",
  "../policies.kyverno.io/policies.kyverno.io_namespaceddeletingpolicies.yaml",
].map((f) => fileURLToPath(new URL(f, CRD_DIR)));
const hasKubectl = kubectlAvailable();
if (!hasKubectl) console.warn("skipping the cleanup e2e suite: kubectl is not installed");

const pod = (name: string, labels: Record<string, string>, namespace = "team") =>
  JSON.stringify({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace, labels },
    spec: { containers: [{ name: "app", image: "nginx:1.27" }] },
  });

describe.skipIf(!hasKubectl)("kyverno-ts cleanup in a cluster, through kubectl", () => {
  let cluster: E2eCluster;
  let client: KubeClient;
  let kubectl: E2eCluster["kubectl"];
  const logger = recordingLogger();
  let metricsPort = 0;
  let webhookPort = 0;

  beforeAll(async () => {
    cluster = await startE2eCluster({
      crds: CRDS,
      kyvernoCrds: false,
      namespaces: ["kyverno", "team", "scratch"],
      admission: false,
      cleanup: { logger },
    });
    ({ client, kubectl } = cluster);
    metricsPort = cluster.cleanup?.metricsPort ?? 0;
    webhookPort = cluster.cleanup?.port ?? 0;
    for (const name of [
      "kyverno-cleanup-validating-webhook-configuration",
      "kyverno-ttl-validating-webhook-configuration",
    ])
      await cluster.webhooks("ValidatingWebhookConfiguration", name, [], 30_000);
  }, 60_000);
  afterAll(async () => {
    await cluster?.stop();
    expect(await cluster?.cleanup?.exited).toBe(0);
  }, 30_000);

  const metric = async (name: string): Promise<string[]> => {
    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    return text.split("\n").filter((l) => l.startsWith(name));
  };

  it("leads on the kyverno-cleanup-controller Lease and answers its probes on the webhook port", async () => {
    await until(
      async () => {
        const lease = await read(client, {
          apiVersion: "coordination.k8s.io/v1",
          kind: "Lease",
          namespace: "kyverno",
          name: "kyverno-cleanup-controller",
        });
        return (
          (lease?.spec as { holderIdentity?: string } | undefined)?.holderIdentity === "kyverno-cleanup-0"
        );
      },
      20_000,
      "the Lease held",
    );
    // The webhook server's certificate is the controller's own CA's: not verified here.
    const probe = (path: string) =>
      new Promise<number>((resolve, reject) => {
        const request = httpsGet(
          { host: "127.0.0.1", port: webhookPort, path, rejectUnauthorized: false },
          (response) => {
            response.resume();
            resolve(response.statusCode ?? 0);
          },
        );
        request.on("error", reject);
      });
    expect(await probe("/health/liveness")).toBe(200);
    expect(await probe("/health/readiness")).toBe(200);
  });

  it("rejects an invalid cleanup policy at kubectl apply, naming the field", async () => {
    const applied = await kubectl(
      ["apply", "-f", "-"],
      JSON.stringify({
        apiVersion: "kyverno.io/v2",
        kind: "ClusterCleanupPolicy",
        metadata: { name: "broken" },
        spec: {
          schedule: "every minute",
          match: { any: [{ resources: { kinds: ["Pod"] }, subjects: [{ kind: "User", name: "alice" }] }] },
        },
      }),
    );
    expect(applied.code).not.toBe(0);
    expect(applied.stderr).toContain(
      'admission webhook "kyverno-cleanup-controller.kyverno.svc" denied the request',
    );
    expect(applied.stderr).toContain(
      'spec.schedule: Invalid value: "every minute": schedule spec in the cleanupPolicy is not in proper cron format',
    );
    expect(applied.stderr).toContain("spec.match.any[0].subjects: Forbidden");
    expect((await kubectl(["get", "clustercleanuppolicy", "broken"])).stderr).toContain("not found");
  });

  it("deletes the Pods a ClusterCleanupPolicy matches (conditions read a context ConfigMap), on its schedule", async () => {
    await kubectl(["create", "-f", "-"], pod("old-a", { canremove: "true", tier: "batch" }));
    await kubectl(["create", "-f", "-"], pod("old-b", { canremove: "true", tier: "batch" }));
    await kubectl(["create", "-f", "-"], pod("old-web", { canremove: "true", tier: "web" }));
    await kubectl(["create", "-f", "-"], pod("keep", { tier: "batch" }));
    await kubectl(["create", "configmap", "-n", "team", "cleanup-settings", "--from-literal=tier=batch"]);
    const applied = await kubectl(
      ["apply", "-f", "-"],
      JSON.stringify({
        apiVersion: "kyverno.io/v2",
        kind: "ClusterCleanupPolicy",
        metadata: { name: "clean-batch" },
        spec: {
          // Upstream's cron accepts @every: the test does not wait a minute.
          schedule: "@every 2s",
          match: {
            any: [{ resources: { kinds: ["Pod"], selector: { matchLabels: { canremove: "true" } } } }],
          },
          // The tier to clean up comes from a ConfigMap read through the policy's context.
          context: [{ name: "settings", configMap: { name: "cleanup-settings", namespace: "team" } }],
          conditions: {
            all: [
              {
                key: "{{ target.metadata.labels.tier }}",
                operator: "Equals",
                value: "{{ settings.data.tier }}",
              },
            ],
          },
          deletionPropagationPolicy: "Background",
        },
      }),
    );
    expect(applied.stderr).toBe("");
    const exists = async (name: string) =>
      (await read(client, { apiVersion: "v1", kind: "Pod", namespace: "team", name })) !== undefined;
    await until(
      async () => !(await exists("old-a")) && !(await exists("old-b")),
      20_000,
      "matching Pods deleted",
    );
    expect(await exists("old-web")).toBe(true);
    expect(await exists("keep")).toBe(true);
    await until(
      async () => {
        const policy = await read(client, {
          apiVersion: "kyverno.io/v2",
          kind: "ClusterCleanupPolicy",
          name: "clean-batch",
        });
        return (
          typeof (policy?.status as { lastExecutionTime?: unknown } | undefined)?.lastExecutionTime ===
          "string"
        );
      },
      10_000,
      "lastExecutionTime",
    );
    expect(await metric("kyverno_cleanup_controller_deletedobjects_total")).toContain(
      'kyverno_cleanup_controller_deletedobjects_total{policy_type="cluster",policy_namespace="-",policy_name="clean-batch",resource_kind="Pod",resource_namespace="team"} 2',
    );
    await until(
      async () =>
        (await kubectl(["get", "events", "-n", "default", "-o", "json"])).stdout.includes(
          "successfully cleaned up the target resource Pod/team/old-a",
        ),
      10_000,
      "cleanup event",
    );
  }, 40_000);

  it("a namespaced CleanupPolicy deletes only in its own namespace", async () => {
    await kubectl(["create", "-f", "-"], pod("team-scratch", { scratch: "true" }));
    await kubectl(["create", "-f", "-"], pod("other-scratch", { scratch: "true" }, "scratch"));
    const applied = await kubectl(
      ["apply", "-f", "-"],
      JSON.stringify({
        apiVersion: "kyverno.io/v2",
        kind: "CleanupPolicy",
        metadata: { name: "scratch-pods", namespace: "team" },
        spec: {
          schedule: "@every 2s",
          match: { any: [{ resources: { kinds: ["Pod"], selector: { matchLabels: { scratch: "true" } } } }] },
        },
      }),
    );
    expect(applied.stderr).toBe("");
    const exists = async (namespace: string, name: string) =>
      (await read(client, { apiVersion: "v1", kind: "Pod", namespace, name })) !== undefined;
    await until(async () => !(await exists("team", "team-scratch")), 20_000, "the team Pod deleted");
    await until(
      async () =>
        typeof (
          (
            await read(client, {
              apiVersion: "kyverno.io/v2",
              kind: "CleanupPolicy",
              namespace: "team",
              name: "scratch-pods",
            })
          )?.status as { lastExecutionTime?: unknown } | undefined
        )?.lastExecutionTime === "string",
      10_000,
      "lastExecutionTime",
    );
    expect(await exists("scratch", "other-scratch")).toBe(true);
    expect(await metric("kyverno_cleanup_controller_deletedobjects_total")).toContain(
      'kyverno_cleanup_controller_deletedobjects_total{policy_type="namespaced",policy_namespace="team",policy_name="scratch-pods",resource_kind="Pod",resource_namespace="team"} 1',
    );
    // Not left running into the tests after it.
    expect((await kubectl(["delete", "cleanuppolicy", "-n", "team", "scratch-pods"])).code).toBe(0);
  }, 40_000);

  it("deletes a Pod labelled cleanup.kyverno.io/ttl: 5s once it expires", async () => {
    const created = await kubectl(
      ["create", "-f", "-"],
      pod("short-lived", { "cleanup.kyverno.io/ttl": "5s" }),
    );
    expect(created.stderr).toBe("");
    const gone = async () =>
      (await read(client, { apiVersion: "v1", kind: "Pod", namespace: "team", name: "short-lived" })) ===
      undefined;
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(await gone()).toBe(false);
    await until(gone, 20_000, "TTL Pod deleted");
    expect(await metric("kyverno_ttl_controller_deletedobjects_total")).toContain(
      'kyverno_ttl_controller_deletedobjects_total{resource_group="",resource_version="v1",resource_resource="pods",resource_namespace="team"} 1',
    );
  }, 40_000);

  it("reports an unreadable TTL value and keeps the Pod", async () => {
    const created = await kubectl(
      ["create", "-f", "-"],
      pod("unreadable-ttl", { "cleanup.kyverno.io/ttl": "tomorrow" }),
    );
    expect(created.code).toBe(0);
    expect(created.stderr).toContain(
      'Warning: cleanup.kyverno.io/ttl label value cannot be parsed as any recognizable format (invalid value "tomorrow" of label cleanup.kyverno.io/ttl',
    );
    await until(
      () =>
        logger.lines.some(
          (l) => l.message === "failed to parse label" && JSON.stringify(l.fields).includes("unreadable-ttl"),
        ),
      20_000,
      "the parse error logged",
    );
    expect(
      await read(client, { apiVersion: "v1", kind: "Pod", namespace: "team", name: "unreadable-ttl" }),
    ).toBeDefined();
  }, 40_000);

  it("runs a DeletingPolicy: deletes the Pods its CEL conditions select", async () => {
    await kubectl(["create", "-f", "-"], pod("scratch-tmp", { temporary: "true" }, "scratch"));
    await kubectl(["create", "-f", "-"], pod("scratch-keep", { temporary: "false" }, "scratch"));
    const applied = await kubectl(
      ["apply", "-f", "-"],
      JSON.stringify({
        apiVersion: "policies.kyverno.io/v1beta1",
        kind: "DeletingPolicy",
        metadata: { name: "temporary-pods" },
        spec: {
          schedule: "@every 2s",
          matchConstraints: {
            resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["*"], resources: ["pods"] }],
            namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "scratch" } },
          },
          conditions: [
            { name: "temporary", expression: "object.metadata.?labels.?temporary.orValue('') == 'true'" },
          ],
        },
      }),
    );
    expect(applied.stderr).toBe("");
    const exists = async (name: string) =>
      (await read(client, { apiVersion: "v1", kind: "Pod", namespace: "scratch", name })) !== undefined;
    await until(async () => !(await exists("scratch-tmp")), 20_000, "the DeletingPolicy's Pod deleted");
    expect(await exists("scratch-keep")).toBe(true);
    expect(await metric("kyverno_deleting_controller_deletedobjects_total")).toContain(
      'kyverno_deleting_controller_deletedobjects_total{policy_type="DeletingPolicy",policy_namespace="",policy_name="temporary-pods",resource="pods"} 1',
    );
    // Upstream's Event: PolicyApplied on the DeletingPolicy (in default), the Pod related.
    const selector = "reason=PolicyApplied,involvedObject.name=temporary-pods";
    await until(
      async () =>
        (await kubectl(["get", "events", "-n", "default", "--field-selector", selector])).stdout.includes(
          "temporary-pods",
        ),
      20_000,
      "the DeletingPolicy's Event",
    );
    const listed = await kubectl(["get", "events", "-n", "default", "--field-selector", selector]);
    expect(listed.stdout).toMatch(
      /Normal\s+PolicyApplied\s+deletingpolicy\/temporary-pods\s+successfully deleted the target resource Pod\/scratch\/scratch-tmp/,
    );
    const custom = await kubectl([
      "get",
      "events",
      "-n",
      "default",
      "--field-selector",
      selector,
      "-o",
      "custom-columns=ACTION:.action,FROM:.reportingComponent,RELATED:.related.name",
    ]);
    expect(custom.stdout).toMatch(/Resource Cleaned Up\s+kyverno-cleanup\s+scratch-tmp/);
  }, 40_000);
});
