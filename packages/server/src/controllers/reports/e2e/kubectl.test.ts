/**
 * The product brief's query, with the real kubectl: the bundled policies (`policies/`) and the example
 * shop (`examples/`), all deployed in `production`, scanned in the background.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type JsonObject, type KubeObject, loadPolicy, parseDocuments } from "@kyverno-ts/api";
import { createEngine, policyReportResults } from "@kyverno-ts/engine";
import type { KubeClient } from "@kyverno-ts/kube";
import type { Sandbox } from "@kyverno-ts/sandbox";
import { kubectlAvailable, kubectlFor, NO_KUBECTL } from "@kyverno-ts/testing";
import { describe, expect, it } from "vitest";
import { controllerFor, eventually, idle, namespace, put, useCluster } from "../testing/harness.js";

const REPO = fileURLToPath(new URL("../../../../../..", import.meta.url));
const JSONPATH = `{range .items[*].results[?(@.result=="fail")]}{.policy}: {.message}{"\\n"}{end}`;

function documents(dir: string): JsonObject[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".yaml"))
    .sort()
    .flatMap((f) =>
      parseDocuments(readFileSync(join(dir, f), "utf8"), f).documents.map((d) => d.value as JsonObject),
    );
}

const TITLE = kubectlAvailable()
  ? "kubectl get policyreport"
  : `kubectl get policyreport (skipped: ${NO_KUBECTL})`;

describe.skipIf(!kubectlAvailable())(TITLE, { timeout: 30_000 }, () => {
  let sandbox: Sandbox;
  let client: KubeClient;
  useCluster((started) => {
    ({ sandbox, client } = started);
  });

  it("prints one line per failing rule of the workloads in production", async () => {
    const policies = documents(join(REPO, "policies"));
    const workloads = [
      ...documents(join(REPO, "examples/production")),
      ...documents(join(REPO, "examples/staging")),
    ].map((o) => ({ ...o, metadata: { ...(o.metadata as JsonObject), namespace: "production" } }));
    await put(client, namespace("production"));
    for (const w of workloads) await put(client, w);
    const controller = controllerFor(client);
    await controller.start();
    for (const p of policies) await put(client, p);
    await eventually(
      () => idle(controller) && controller.stats().created >= workloads.length - 1,
      10_000,
      "scanned",
    );

    const kubectl = kubectlFor(sandbox.kubeconfigPath);
    const run = await kubectl(["get", "policyreport", "-n", "production", "-o", `jsonpath=${JSONPATH}`]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const printed = run.stdout
      .split("\n")
      .filter((l) => l !== "")
      .sort();

    // The same lines, computed by the engine from the same manifests.
    const engine = createEngine();
    const compiled = policies.flatMap((p) => {
      const loaded = loadPolicy(p, { file: "policy" });
      const c = loaded.ok ? engine.compile(loaded.value) : undefined;
      return c?.ok === true ? [c.policy] : [];
    });
    expect(compiled).toHaveLength(policies.length);
    const want = workloads
      .flatMap((w) =>
        compiled.flatMap((c) =>
          policyReportResults(engine.validate(c, { resource: w as KubeObject, background: true })),
        ),
      )
      .filter((r) => r.result === "fail")
      .map((r) => `${r.policy}: ${r.message}`)
      .sort();
    expect(printed).toEqual(want);
    expect(printed.map((l) => l.slice(0, l.indexOf(":")))).toEqual([
      "disallow-latest-tag",
      "disallow-privileged-containers",
      "require-argocd-management",
      "require-argocd-management",
      "require-probes",
      "require-requests-limits",
      "require-standard-labels",
    ]);
    await controller.stop();
  });
});
