/**
 * End to end: `kyverno-ts cleanup` started against the sandbox without the DeletingPolicy CRDs
 * (the kyverno-ts-crds chart installed after kyverno-ts); once they are applied with kubectl, a
 * DeletingPolicy deletes the Pods its conditions select, without a restart.
 */
import { fileURLToPath } from "node:url";
import type { KubeClient } from "@kyverno-ts/kube";
import { kubectlAvailable } from "@kyverno-ts/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { read, until } from "../../../testing/cluster.js";
import { type E2eCluster, startE2eCluster } from "../../../testing/e2e-cluster.js";
import { recordingLogger } from "../../../testing/fixtures.js";

const CRD_DIR = new URL("../../../../../../../shared/reference/kyverno-crds/", import.meta.url);
const CLEANUP_CRDS = [
  "kyverno/kyverno.io_cleanuppolicies.yaml",
  "kyverno/kyverno.io_clustercleanuppolicies.yaml",
].map((f) => fileURLToPath(new URL(f, CRD_DIR)));
const DELETING_CRDS = [
  "policies.kyverno.io/policies.kyverno.io_deletingpolicies.yaml",
  "policies.kyverno.io/policies.kyverno.io_namespaceddeletingpolicies.yaml",
].map((f) => fileURLToPath(new URL(f, CRD_DIR)));
const hasKubectl = kubectlAvailable();
if (!hasKubectl) console.warn("skipping the late DeletingPolicy CRDs e2e: kubectl is not installed");

const pod = (name: string, temporary: string) =>
  JSON.stringify({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "scratch", labels: { temporary } },
    spec: { containers: [{ name: "app", image: "nginx:1.27" }] },
  });

describe.skipIf(!hasKubectl)("DeletingPolicy CRDs installed after the cleanup controller started", () => {
  let cluster: E2eCluster;
  let client: KubeClient;
  let kubectl: E2eCluster["kubectl"];
  const logger = recordingLogger();

  beforeAll(async () => {
    cluster = await startE2eCluster({
      crds: CLEANUP_CRDS,
      kyvernoCrds: false,
      namespaces: ["kyverno", "scratch"],
      admission: false,
      cleanup: { logger },
    });
    ({ client, kubectl } = cluster);
  }, 60_000);
  afterAll(async () => {
    await cluster?.stop();
    expect(await cluster?.cleanup?.exited).toBe(0);
  }, 30_000);

  it("says it waits for the CRDs; once applied, a DeletingPolicy deletes the Pods it selects", async () => {
    expect(
      logger.lines.some(
        (l) =>
          l.level === "warn" &&
          /CRDs not installed/.test(l.message) &&
          JSON.stringify(l.fields).includes("DeletingPolicy"),
      ),
    ).toBe(true);
    await kubectl(["create", "-f", "-"], pod("scratch-tmp", "true"));
    await kubectl(["create", "-f", "-"], pod("scratch-keep", "false"));
    const crds = await kubectl(["apply", "--server-side", ...DELETING_CRDS.flatMap((f) => ["-f", f])]);
    expect(crds.stderr).toBe("");
    const policy = JSON.stringify({
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
    });
    await until(
      async () => (await kubectl(["apply", "-f", "-"], policy)).stderr === "",
      30_000,
      "the policy applied",
    );
    const exists = async (name: string) =>
      (await read(client, { apiVersion: "v1", kind: "Pod", namespace: "scratch", name })) !== undefined;
    await until(async () => !(await exists("scratch-tmp")), 60_000, "the DeletingPolicy's Pod deleted");
    expect(await exists("scratch-keep")).toBe(true);
    expect(logger.lines.filter((l) => l.message === "CRDs installed: running DeletingPolicies")).toHaveLength(
      1,
    );
  }, 120_000);
});
