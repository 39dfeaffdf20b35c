/**
 * The playground end to end, as `npm start` runs it: the real API server, both controllers and the
 * reporter in one process, the bundled policies and examples, then kubectl and chromium against it.
 * A new violation applied with kubectl must reach the PolicyReport, the reporter's store and the
 * dashboard. kubectl and chromium are installed by `.ci/run`; outside CI the parts needing them are
 * skipped with a printed reason when they are missing.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AnyPolicyReport } from "@kyverno-ts/api";
import { hasChromium, kubectlAvailable, kubectlFor, launchBrowser, settler } from "@kyverno-ts/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Playground, startPlayground } from "./playground.js";

const inCi = process.env.CI === "true";
const hasKubectl = kubectlAvailable();
if (!hasKubectl && !inCi) console.warn("playground tests: kubectl not on PATH, its steps are skipped");
if (!hasChromium && !inCi) console.warn("playground tests: chromium missing, the browser step is skipped");

const SHOTS = join(process.cwd(), ".artifacts", "screenshots");

async function reportFor(
  p: Playground,
  namespace: string,
  name: string,
): Promise<AnyPolicyReport | undefined> {
  const listed = await p.admin.list<AnyPolicyReport>({
    apiVersion: "wgpolicyk8s.io/v1alpha2",
    kind: "PolicyReport",
    namespace,
  });
  if (!listed.ok) throw new Error(listed.message);
  return listed.value.items.find((r) => r.scope?.name === name);
}

describe("playground", { timeout: 60_000 }, () => {
  let dir: string;
  let playground: Playground;
  const stages: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "kyverno-ts-playground-"));
    playground = await startPlayground({
      dir,
      port: 0,
      progress: {
        begin: (stage) => {
          stages.push(stage);
          return () => {};
        },
      },
    });
  }, 60_000);
  afterAll(async () => {
    await playground?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("installs Kyverno's ConfigMap as the chart does, so the controllers can be configured", async () => {
    const got = await playground.admin.get({
      apiVersion: "v1",
      kind: "ConfigMap",
      namespace: "kyverno",
      name: "kyverno",
    });
    expect(got.ok).toBe(true);
    const data = (got.ok ? got.value.data : undefined) as Record<string, string> | undefined;
    expect(data?.resourceFilters).toContain("[*/*,kyverno,*]");
    expect(data?.excludeGroups).toBe("system:nodes");
    expect(data?.defaultRegistry).toBe("docker.io");
  });

  it("starts every part in order and reports progress", () => {
    expect(stages).toEqual([
      "local Kubernetes API server",
      "admission controller",
      "background controller",
      "policies (8)",
      "reports controller",
      "cleanup controller",
      "Policy Reporter and dashboard",
      "example manifests (8 requests)",
    ]);
  });

  it("generates the bundled example's NetworkPolicy in staging (background controller)", async () => {
    const generated = async () => {
      const found: string[] = [];
      for (const namespace of ["staging", "production"]) {
        const got = await playground.admin.get({
          apiVersion: "networking.k8s.io/v1",
          kind: "NetworkPolicy",
          namespace,
          name: "default-deny-ingress",
        });
        if (
          got.ok &&
          got.value.metadata?.labels?.["generate.kyverno.io/policy-name"] === "add-default-networkpolicy"
        )
          found.push(namespace);
      }
      return found;
    };
    const deadline = Date.now() + 30_000;
    while ((await generated()).length < 1 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    // Production is protected (only Argo CD may change it) and the policy does not select it.
    expect(await generated()).toEqual(["staging"]);
  });

  it("admits staging manifests with Audit warnings naming the failing policies", () => {
    const staging = playground.outcomes.filter((o) => o.step.file.startsWith("examples/staging/"));
    expect(staging.map((o) => o.result)).toEqual(["created", "created", "created", "created"]);
    const warned = (file: string) =>
      staging
        .find((o) => o.step.file.endsWith(file))
        ?.warnings.map((w) => w.split(":")[0])
        .sort();
    expect(warned("storefront-latest-no-probes.yaml")).toEqual([
      "policy disallow-latest-tag.autogen-validate-image-tag",
      "policy require-probes.autogen-validate-probes",
    ]);
    expect(warned("log-shipper-privileged.yaml")).toEqual([
      "policy disallow-privileged-containers.autogen-privileged-containers",
    ]);
    expect(warned("cache-warmer-pod-no-limits.yaml")).toEqual([
      "policy require-argocd-management.require-argocd-tracking",
      "policy require-requests-limits.validate-resources",
    ]);
  });

  it("blocks production manifests applied by hand (Enforce) and admits Argo CD's", () => {
    const production = playground.outcomes.filter((o) => o.step.file.startsWith("examples/production/"));
    const byHand = production.filter((o) => o.step.actor === "admin");
    expect(byHand.map((o) => o.result)).toEqual(["blocked", "blocked"]);
    for (const o of byHand) {
      expect(o.message).toMatch(/resource (Deployment|Service)\/production\/checkout was blocked/);
      expect(o.message).toContain("protect-critical-namespaces");
    }
    const synced = production.filter((o) => o.step.actor === "argocd");
    expect(synced.map((o) => [o.result, o.warnings])).toEqual([
      ["created", []],
      ["created", []],
    ]);
  });

  it("writes PolicyReports with exact summaries, and the reporter stores them", async () => {
    await playground.reportsWritten();
    const storefront = await reportFor(playground, "staging", "storefront");
    expect(storefront?.summary).toMatchObject({ pass: 5, fail: 2, warn: 0, error: 0, skip: 0 });
    const failing = storefront?.results?.filter((r) => r.result === "fail").map((r) => r.policy);
    expect(failing?.sort()).toEqual(["disallow-latest-tag", "require-probes"]);
    const checkout = await reportFor(playground, "production", "checkout");
    expect(checkout?.summary?.fail).toBe(0);
    // 30 passes: the generate rule's on the staging Namespace, and the admission results of
    // protect-critical-namespaces (not a background policy) for both production objects, the Service
    // included although no background policy reports on Services.
    const counts = await playground.reporter.store.countBy(["status"], {});
    expect(Object.fromEntries(counts.map((c) => [c.status, c.count]))).toEqual({ pass: 30, fail: 7 });
  });

  it("serves the dashboard and the API on one local port", async () => {
    const index = await fetch(playground.dashboardUrl);
    expect(index.status).toBe(200);
    expect(await index.text()).toContain('<div id="root">');
    const namespaces = await fetch(new URL("v1/namespaces", playground.dashboardUrl));
    expect(await namespaces.json()).toEqual(expect.arrayContaining(["production", "staging"]));
  });

  describe.runIf(hasKubectl || inCi)("with kubectl", () => {
    it("blocks a hand-made change in production and warns on one in staging", async () => {
      const kubectl = kubectlFor(playground.kubeconfigPath);
      const blocked = await kubectl(["run", "hotfix", "-n", "production", "--image=nginx:1.27.3"]);
      expect(blocked.code).not.toBe(0);
      expect(blocked.stderr).toContain("protect-critical-namespaces");
      const audited = await kubectl([
        "run",
        "debug",
        "-n",
        "staging",
        "--image=busybox:latest",
        "--privileged",
      ]);
      expect(audited.code).toBe(0);
      expect(audited.stderr).toMatch(/Warning: policy disallow-privileged-containers\.privileged-containers/);
      expect(audited.stdout).toContain("pod/debug created");
    });

    it("honours PolicyExceptions from namespace kyverno only (--enablePolicyException --exceptionNamespace kyverno)", async () => {
      const kubectl = kubectlFor(playground.kubeconfigPath);
      const exception = (namespace: string, pods: string) => `apiVersion: kyverno.io/v2
kind: PolicyException
metadata: {name: privileged-${pods.replace("-*", "")}, namespace: ${namespace}}
spec:
  exceptions: [{policyName: disallow-privileged-containers, ruleNames: [privileged-containers]}]
  match: {any: [{resources: {kinds: [Pod], namespaces: [staging], names: ["${pods}"]}}]}
`;
      const accepted = await kubectl(["apply", "-f", "-"], exception("kyverno", "exempt-*"));
      expect(accepted.stderr).toBe("");
      const elsewhere = await kubectl(["apply", "-f", "-"], exception("staging", "other-*"));
      expect(elsewhere.code).toBe(0);
      expect(elsewhere.stderr).toContain(
        "PolicyException resource namespace must match the defined namespace.",
      );
      const privileged = (name: string) =>
        kubectl(["run", name, "-n", "staging", "--image=busybox:1.36", "--privileged", "--dry-run=server"]);
      await expect
        .poll(async () => (await privileged("exempt-debug")).stderr, { timeout: 10_000, interval: 200 })
        .not.toContain("disallow-privileged-containers");
      const other = await privileged("other-debug");
      expect(other.code).toBe(0);
      expect(other.stderr).toMatch(/Warning: policy disallow-privileged-containers\.privileged-containers/);
    });

    it.runIf(hasChromium || inCi)("shows a violation applied with kubectl on the dashboard", async () => {
      mkdirSync(SHOTS, { recursive: true });
      const browser = await launchBrowser(new URL(playground.dashboardUrl).origin);
      try {
        const page = await browser.context.newPage();
        page.setDefaultTimeout(15_000);
        const settle = settler(page);
        const route = (path: string) => `${playground.dashboardUrl}#${path}`;
        await page.goto(route("/"));
        await settle();
        await page.screenshot({ path: join(SHOTS, "playground-dashboard.png"), fullPage: true });

        const kubectl = kubectlFor(playground.kubeconfigPath);
        const applied = await kubectl(["run", "new-violation", "-n", "staging", "--image=redis:latest"]);
        expect(applied.code).toBe(0);
        // The report is written by the reports controller and ingested by the reporter; the page
        // shows it once reloaded (the dashboard fetches on navigation).
        await expect
          .poll(
            async () => {
              await page.goto(route("/namespaces/staging"));
              await page.reload();
              await settle();
              return page.getByText("new-violation").count();
            },
            { timeout: 20_000, interval: 500 },
          )
          .toBeGreaterThan(0);
        await page.screenshot({ path: join(SHOTS, "playground-new-violation.png"), fullPage: true });
      } finally {
        await browser.close();
      }
    });
  });
});
