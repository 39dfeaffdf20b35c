import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { KYVERNO_CRDS, kubectlAvailable, kubectlFor, NO_KUBECTL } from "@kyverno-ts/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../index.js";

const CRDS = KYVERNO_CRDS;
const hasKubectl = kubectlAvailable();
if (!hasKubectl) console.warn(`skipping kubectl e2e tests: ${NO_KUBECTL}`);

describe.skipIf(!hasKubectl)("kubectl against the sandbox", () => {
  let sandbox: Sandbox;
  let kubectl: ReturnType<typeof kubectlFor>;
  let dir: string;

  beforeAll(async () => {
    sandbox = await startSandbox({ crds: [join(CRDS, "kyverno/kyverno.io_clusterpolicies.yaml")] });
    kubectl = kubectlFor(sandbox.kubeconfigPath);
    dir = join(sandbox.kubeconfigPath, "..");
  });
  afterAll(async () => {
    await sandbox?.stop();
  });

  const file = (name: string, text: string): string => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };

  it("lists the bootstrap namespaces and creates one with a generator (protobuf body)", async () => {
    const ns = await kubectl(["get", "ns"]);
    expect(ns.stdout).toMatch(/^NAME\s+STATUS\s+AGE/);
    expect(ns.stdout).toContain("kube-system");
    expect((await kubectl(["create", "ns", "team-a"])).stdout).toBe("namespace/team-a created\n");
    const cm = await kubectl(["create", "configmap", "settings", "-n", "team-a", "--from-literal=mode=fast"]);
    expect(cm.stdout).toBe("configmap/settings created\n");
    const json = JSON.parse((await kubectl(["get", "cm", "settings", "-n", "team-a", "-o", "json"])).stdout);
    expect(json).toMatchObject({
      kind: "ConfigMap",
      data: { mode: "fast" },
      metadata: { namespace: "team-a" },
    });
    expect(json.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("applies, re-applies (strategic merge from last-applied), labels, patches and describes a Deployment", async () => {
    const manifest = (image: string, sidecar: boolean) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: team-a}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - {name: app, image: ${image}}
${sidecar ? "      - {name: side, image: busybox}\n" : ""}`;
    expect((await kubectl(["apply", "-f", file("d1.yaml", manifest("nginx:1.25", true))])).stdout).toBe(
      "deployment.apps/web created\n",
    );
    expect((await kubectl(["apply", "-f", file("d2.yaml", manifest("nginx:1.26", false))])).stdout).toBe(
      "deployment.apps/web configured\n",
    );
    const containers = await kubectl([
      "get",
      "deploy",
      "web",
      "-n",
      "team-a",
      "-o",
      "jsonpath={.spec.template.spec.containers[*].image} {.metadata.generation}",
    ]);
    expect(containers.stdout).toBe("nginx:1.26 2");
    expect((await kubectl(["label", "deploy", "web", "-n", "team-a", "tier=front"])).stdout).toBe(
      "deployment.apps/web labeled\n",
    );
    expect(
      (await kubectl(["patch", "deploy", "web", "-n", "team-a", "-p", '{"spec":{"replicas":3}}'])).stdout,
    ).toBe("deployment.apps/web patched\n");
    const jp = await kubectl([
      "patch",
      "deploy",
      "web",
      "-n",
      "team-a",
      "--type",
      "json",
      "-p",
      '[{"op":"replace","path":"/spec/replicas","value":4}]',
    ]);
    expect(jp.code).toBe(0);
    const get = await kubectl(["get", "deploy", "-n", "team-a", "--show-labels"]);
    expect(get.stdout).toMatch(/web\s+0\/4\s+0\s+0\s+\S+\s+tier=front\n/);
    const describe = await kubectl(["describe", "deploy", "web", "-n", "team-a"]);
    expect(describe.stdout).toContain("Replicas:           4 desired");
    expect(describe.stdout).toContain("nginx:1.26");
  });

  it("prints Kubernetes' error texts", async () => {
    const missing = await kubectl(["get", "cm", "nope", "-n", "team-a"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe('Error from server (NotFound): configmaps "nope" not found\n');
    const noNs = await kubectl(["create", "configmap", "x", "-n", "ghost"]);
    expect(noNs.stderr).toContain('namespaces "ghost" not found');
    const exists = await kubectl(["create", "ns", "team-a"]);
    expect(exists.stderr).toBe('Error from server (AlreadyExists): namespaces "team-a" already exists\n');
    const invalid = await kubectl(["create", "ns", "Bad_Name"]);
    expect(invalid.stderr).toContain(
      'The Namespace "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 label',
    );
    const unknown = await kubectl(["get", "widgets"]);
    expect(unknown.stderr).toContain('the server doesn\'t have a resource type "widgets"');
  });

  it("rejects a stale resourceVersion with 409 Conflict", async () => {
    const cm = JSON.parse((await kubectl(["get", "cm", "settings", "-n", "team-a", "-o", "json"])).stdout);
    await kubectl(["label", "cm", "settings", "-n", "team-a", "bump=1"]);
    cm.data.mode = "slow";
    const replaced = await kubectl(["replace", "-f", file("stale.json", JSON.stringify(cm))]);
    expect(replaced.stderr).toContain(
      'Error from server (Conflict): error when replacing "' +
        join(dir, "stale.json") +
        '": Operation cannot be fulfilled on configmaps "settings": the object has been modified; please apply your changes to the latest version and try again',
    );
  });

  it("creates with generateName, and does nothing on --dry-run=server", async () => {
    const created = await kubectl(
      ["create", "-f", "-", "-o", "name"],
      JSON.stringify({
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { generateName: "job-", namespace: "team-a" },
      }),
    );
    expect(created.stdout).toMatch(/^configmap\/job-[bcdfghjklmnpqrstvwxz2456789]{5}\n$/);
    const dry = await kubectl(["create", "configmap", "dry", "-n", "team-a", "--dry-run=server"]);
    expect(dry.stdout).toBe("configmap/dry created (server dry run)\n");
    expect((await kubectl(["get", "cm", "dry", "-n", "team-a"])).code).toBe(1);
  });

  it("installs Kyverno's CRD, applies a ClusterPolicy and reads it back; strategic merge on it is a 415", async () => {
    const policy = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: require-team}
spec:
  validationFailureAction: Audit
  rules:
  - name: check-team
    match: {any: [{resources: {kinds: [Pod]}}]}
    validate: {message: "label team is required", pattern: {metadata: {labels: {team: "?*"}}}}
`;
    expect((await kubectl(["apply", "-f", file("cpol.yaml", policy)])).stdout).toBe(
      "clusterpolicy.kyverno.io/require-team created\n",
    );
    const back = JSON.parse((await kubectl(["get", "cpol", "require-team", "-o", "json"])).stdout);
    expect(back.spec.rules[0].name).toBe("check-team");
    expect(back.spec.background).toBe(true);
    const table = await kubectl(["get", "clusterpolicies"]);
    expect(table.stdout).toMatch(/^NAME\s+ADMISSION\s+BACKGROUND\s+READY\s+AGE\s+MESSAGE\n/);
    const smp = await kubectl([
      "patch",
      "cpol",
      "require-team",
      "--type",
      "strategic",
      "-p",
      '{"spec":{"background":false}}',
    ]);
    expect(smp.stderr).toContain(
      "application/strategic-merge-patch+json is not supported by kyverno.io/v1, Kind=ClusterPolicy: the body of the request was in an unknown format",
    );
    const merge = await kubectl([
      "patch",
      "cpol",
      "require-team",
      "--type",
      "merge",
      "-p",
      '{"spec":{"background":false}}',
    ]);
    expect(merge.stdout).toBe("clusterpolicy.kyverno.io/require-team patched\n");
    const bad = await kubectl(
      ["apply", "-f", "-"],
      policy.replace("validationFailureAction: Audit", "validationFailureAction: Sometimes"),
    );
    expect(bad.stderr).toContain("spec.validationFailureAction: Unsupported value");
    const typo = await kubectl(
      ["apply", "-f", "-"],
      policy.replace("validationFailureAction: Audit", "validationFailureActon: Audit"),
    );
    expect(typo.stderr).toContain('strict decoding error: unknown field "spec.validationFailureActon"');
  });

  it("serves policy reports once the wgpolicyk8s CRDs are installed", async () => {
    const before = await kubectl(["get", "policyreport", "-A"]);
    expect(before.code).toBe(1);
    expect((await kubectl(["apply", "-f", join(CRDS, "policyreport")])).code).toBe(0);
    const report = {
      apiVersion: "wgpolicyk8s.io/v1alpha2",
      kind: "PolicyReport",
      metadata: { name: "r1", namespace: "team-a" },
      summary: { pass: 1, fail: 0, warn: 0, error: 0, skip: 0 },
      results: [],
    };
    expect((await kubectl(["create", "-f", "-"], JSON.stringify(report))).code).toBe(0);
    const list = await kubectl(["get", "policyreport", "-A"]);
    expect(list.stdout).toMatch(/team-a\s+r1/);
  });

  it("deletes a namespace with everything in it", async () => {
    await kubectl(["create", "ns", "doomed"]);
    await kubectl(["create", "configmap", "c1", "-n", "doomed"]);
    await kubectl(["create", "sa", "robot", "-n", "doomed"]);
    const deleted = await kubectl(["delete", "ns", "doomed"]);
    expect(deleted.stdout).toBe('namespace "doomed" deleted\n');
    expect((await kubectl(["get", "ns", "doomed"])).stderr).toContain('namespaces "doomed" not found');
    expect((await kubectl(["get", "cm", "-n", "doomed"])).stderr).toContain("No resources found");
  });

  it("rejects an object over 1.5 MiB", async () => {
    const big = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "big", namespace: "team-a" },
      data: { a: "x".repeat(900_000), b: "y".repeat(900_000) },
    };
    const result = await kubectl(["create", "-f", file("big.json", JSON.stringify(big))]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/RequestEntityTooLarge|Too long/);
  });
});
