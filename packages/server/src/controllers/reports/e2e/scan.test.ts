/** End to end against the sandbox: background scans produce, update and remove per-resource reports. */
import type { AnyPolicyReport } from "@kyverno-ts/api";
import { reportSummary } from "@kyverno-ts/engine";
import type { KubeClient } from "@kyverno-ts/kube";
import { describe, expect, it } from "vitest";
import { createReportsMetrics } from "../metrics.js";
import {
  allReports,
  controllerFor,
  eventually,
  idle,
  namespace,
  pod,
  put,
  remove,
  requireLabelPolicy,
  useCluster,
} from "../testing/harness.js";

const POLICY_REF = { apiVersion: "kyverno.io/v1", kind: "ClusterPolicy" };

function deployment(name: string, ns: string, labels: Record<string, string> = {}) {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace: ns },
    spec: {
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name, ...labels } },
        spec: { containers: [{ name: "app", image: "nginx:1.27" }] },
      },
    },
  };
}

/** Reports of one namespace by resource name, checking the invariants every report must hold. */
async function reportsIn(client: KubeClient, ns: string): Promise<Map<string, AnyPolicyReport>> {
  const out = new Map<string, AnyPolicyReport>();
  for (const r of await allReports(client)) {
    if (r.metadata.namespace !== ns) continue;
    expect(r.summary).toEqual(reportSummary(r.results ?? []));
    const keys = (r.results ?? []).map((x) => `${x.policy}/${x.rule}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(r.metadata.name).toBe(r.scope?.uid);
    out.set(r.scope?.name ?? "", r);
  }
  return out;
}

const outcome = (r: AnyPolicyReport | undefined) =>
  (r?.results ?? []).map((x) => `${x.policy}/${x.rule}=${x.result}`).sort();

describe("background scan reports (sandbox)", { timeout: 30_000 }, () => {
  let client: KubeClient;
  useCluster((started) => {
    client = started.client;
  });

  it("reports resources that existed before the policy, flips fixed ones, drops deleted ones", async () => {
    await put(client, namespace("shop"));
    await put(client, pod("good", "shop", { labels: { team: "a" } }));
    const bad = await put(client, pod("bad", "shop"));
    await put(client, deployment("web", "shop"));
    const metrics = createReportsMetrics();
    const controller = controllerFor(client, { metrics });
    await controller.start();
    await eventually(() => idle(controller), 10_000, "first scan");
    expect((await reportsIn(client, "shop")).size).toBe(0);

    await put(client, requireLabelPolicy("require-team", "team"));
    await eventually(async () => (await reportsIn(client, "shop")).size === 3, 10_000, "three reports");
    const reports = await reportsIn(client, "shop");
    expect(outcome(reports.get("good"))).toEqual(["require-team/check-team=pass"]);
    expect(outcome(reports.get("bad"))).toEqual(["require-team/check-team=fail"]);
    expect(outcome(reports.get("web"))).toEqual(["require-team/autogen-check-team=fail"]);
    const badReport = reports.get("bad") as AnyPolicyReport;
    expect(badReport).toMatchObject({
      kind: "PolicyReport",
      metadata: {
        name: bad.metadata?.uid,
        namespace: "shop",
        labels: { "app.kubernetes.io/managed-by": "kyverno" },
        ownerReferences: [{ apiVersion: "v1", kind: "Pod", name: "bad", uid: bad.metadata?.uid }],
      },
      scope: { apiVersion: "v1", kind: "Pod", name: "bad", namespace: "shop", uid: bad.metadata?.uid },
      summary: { pass: 0, fail: 1, warn: 0, error: 0, skip: 0 },
    });
    expect(badReport.results?.[0]).toMatchObject({
      source: "kyverno",
      policy: "require-team",
      rule: "check-team",
      result: "fail",
      message:
        "validation error: The label `team` is required. rule check-team failed at path /metadata/labels/",
      category: "Best Practices",
      severity: "medium",
      scored: true,
      properties: { process: "background scan" },
    });
    expect(badReport.results?.[0]?.timestamp?.seconds).toBeGreaterThan(0);

    await put(client, pod("bad", "shop", { labels: { team: "b" } }));
    await eventually(
      async () => outcome((await reportsIn(client, "shop")).get("bad"))[0] === "require-team/check-team=pass",
      10_000,
      "fixed pod passes",
    );
    expect((await reportsIn(client, "shop")).get("bad")?.summary).toMatchObject({ pass: 1, fail: 0 });

    // Nothing changed: a full rescan evaluates everything again and writes nothing.
    await eventually(() => idle(controller));
    const before = controller.stats();
    controller.rescan();
    await eventually(() => controller.stats().scans > before.scans && idle(controller), 10_000, "rescan");
    const after = controller.stats();
    expect([after.created, after.updated, after.deleted]).toEqual([
      before.created,
      before.updated,
      before.deleted,
    ]);
    expect(after.unchanged).toBeGreaterThanOrEqual(before.unchanged + 3);

    // Orphan propagation: the garbage collector leaves the report alone, so the controller must delete it.
    const deleted = await client.delete(
      { apiVersion: "v1", kind: "Pod", namespace: "shop", name: "bad" },
      { propagationPolicy: "Orphan" },
    );
    expect(deleted.ok).toBe(true);
    await eventually(
      async () => !(await reportsIn(client, "shop")).has("bad"),
      10_000,
      "report of deleted pod gone",
    );
    expect(controller.stats().deleted).toBe(before.deleted + 1);

    const text = await metrics.render();
    expect(text).toMatch(
      /kyverno_policy_results_total\{[^}]*policy_name="require-team"[^}]*rule_result="fail"[^}]*rule_execution_cause="background_scan"[^}]*\} \d+/,
    );
    expect(text).toMatch(
      /kyverno_policy_execution_duration_seconds_count\{[^}]*rule_execution_cause="background_scan"/,
    );
    expect(text).toMatch(
      /kyverno_controller_reconcile_total\{controller_name="background-scan-controller"\} \d+/,
    );

    await remove(client, { ...POLICY_REF, name: "require-team" });
    await eventually(
      async () => (await reportsIn(client, "shop")).size === 0,
      10_000,
      "policy's reports gone",
    );
    await controller.stop();
  });

  it("rescans everything every scan interval, writing nothing when nothing changed", async () => {
    await put(client, namespace("periodic"));
    await put(client, pod("steady", "periodic"));
    await put(client, requireLabelPolicy("require-tier", "tier"));
    const controller = controllerFor(client, { scanIntervalMs: 150 });
    await controller.start();
    await eventually(() => controller.stats().scans >= 4 && idle(controller), 10_000, "periodic scans");
    expect((await reportsIn(client, "periodic")).size).toBe(1);
    const s = controller.stats();
    expect(s.created).toBeGreaterThanOrEqual(1);
    expect(s.updated).toBe(0);
    expect(s.unchanged).toBeGreaterThanOrEqual(3);
    await remove(client, { ...POLICY_REF, name: "require-tier" });
    await eventually(async () => (await allReports(client)).length === 0, 10_000, "cleaned up");
    await controller.stop();
  });

  it("follows policy changes, exceptions, namespace labels, namespaced Policies and cluster-scoped kinds", async () => {
    await put(client, namespace("ops", { env: "prod" }));
    await put(client, namespace("dev"));
    await put(client, pod("api", "ops"));
    await put(client, pod("exempt-job", "ops"));
    await put(client, pod("sandbox", "dev"));
    // PolicyExceptions are off by default (upstream's --enablePolicyException=false): enabled here.
    const controller = controllerFor(client, { exceptionNamespaces: ["*"] });
    await controller.start();
    const prodOwner = requireLabelPolicy("prod-owner", "owner");
    prodOwner.spec.rules[0]?.match.any[0]?.resources &&
      Object.assign(prodOwner.spec.rules[0].match.any[0].resources, {
        namespaceSelector: { matchLabels: { env: "prod" } },
      });
    await put(client, prodOwner);
    await put(client, {
      apiVersion: "kyverno.io/v1",
      kind: "Policy",
      metadata: { name: "require-tier", namespace: "dev" },
      spec: {
        validationFailureAction: "Audit",
        background: true,
        rules: [
          {
            name: "tier",
            match: { any: [{ resources: { kinds: ["Pod"] } }] },
            validate: { message: "tier label", pattern: { metadata: { labels: { tier: "?*" } } } },
          },
        ],
      },
    });
    await put(client, {
      apiVersion: "kyverno.io/v1",
      kind: "ClusterPolicy",
      metadata: { name: "namespace-env" },
      spec: {
        validationFailureAction: "Audit",
        background: true,
        rules: [
          {
            name: "env",
            match: { any: [{ resources: { kinds: ["Namespace"], names: ["ops", "dev"] } }] },
            validate: { message: "env label", pattern: { metadata: { labels: { env: "?*" } } } },
          },
        ],
      },
    });
    await eventually(
      async () =>
        outcome((await reportsIn(client, "ops")).get("api")).join() === "prod-owner/check-owner=fail" &&
        outcome((await reportsIn(client, "dev")).get("sandbox")).join() === "dev/require-tier/tier=fail",
      10_000,
      "selector and namespaced policy",
    );
    const cluster = async () =>
      new Map(
        (await allReports(client))
          .filter((r) => r.kind === "ClusterPolicyReport")
          .map((r) => [r.scope?.name, outcome(r).join()]),
      );
    await eventually(
      async () => (await cluster()).get("dev") === "namespace-env/env=fail",
      10_000,
      "cluster report",
    );
    expect((await cluster()).get("ops")).toBe("namespace-env/env=pass");
    expect((await cluster()).has("default")).toBe(false);

    // The dev namespace gets the label: its Pods now match the selector, and its report passes.
    await put(client, namespace("dev", { env: "prod" }));
    await eventually(
      async () =>
        outcome((await reportsIn(client, "dev")).get("sandbox")).join() ===
        "dev/require-tier/tier=fail,prod-owner/check-owner=fail",
      10_000,
      "namespace label change",
    );
    await eventually(
      async () => (await cluster()).get("dev") === "namespace-env/env=pass",
      10_000,
      "cluster report flips",
    );

    await put(client, {
      apiVersion: "kyverno.io/v2",
      kind: "PolicyException",
      metadata: { name: "jobs", namespace: "ops" },
      spec: {
        exceptions: [{ policyName: "prod-owner", ruleNames: ["check-owner"] }],
        match: { any: [{ resources: { kinds: ["Pod"], names: ["exempt-*"] } }] },
      },
    });
    await eventually(
      async () =>
        outcome((await reportsIn(client, "ops")).get("exempt-job")).join() === "prod-owner/check-owner=skip",
      10_000,
      "exception skips",
    );

    // A changed policy changes its results (new message), everywhere it applied.
    const changed = requireLabelPolicy("prod-owner", "owner");
    changed.spec.rules[0] = { ...(changed.spec.rules[0] as (typeof changed.spec.rules)[0]) };
    (changed.spec.rules[0] as { validate: { message: string } }).validate.message = "Set an owner.";
    Object.assign(changed.spec.rules[0]?.match.any[0]?.resources ?? {}, {
      namespaceSelector: { matchLabels: { env: "prod" } },
    });
    await put(client, changed);
    await eventually(
      async () =>
        ((await reportsIn(client, "ops")).get("api")?.results?.[0]?.message ?? "").startsWith(
          "validation error: Set an owner.",
        ),
      10_000,
      "changed policy",
    );
    for (const name of ["prod-owner", "namespace-env"]) await remove(client, { ...POLICY_REF, name });
    await remove(client, {
      apiVersion: "kyverno.io/v1",
      kind: "Policy",
      namespace: "dev",
      name: "require-tier",
    });
    await eventually(async () => (await allReports(client)).length === 0, 10_000, "all reports gone");
    await controller.stop();
  });
  it("ignores PolicyExceptions unless enabled (upstream's --enablePolicyException=false), then takes them only from --exceptionNamespace", async () => {
    await put(client, namespace("exc-apps"));
    await put(client, namespace("exc-allowed"));
    await put(client, pod("exempt-a", "exc-apps"));
    await put(client, pod("exempt-b", "exc-apps"));
    await put(client, requireLabelPolicy("exc-owner", "owner"));
    const exceptionIn = (ns: string, target: string) => ({
      apiVersion: "kyverno.io/v2",
      kind: "PolicyException",
      metadata: { name: `skip-${target}`, namespace: ns },
      spec: {
        exceptions: [{ policyName: "exc-owner", ruleNames: ["check-owner"] }],
        match: { any: [{ resources: { kinds: ["Pod"], names: [target] } }] },
      },
    });
    // Both exceptions exist before either controller starts, so its first scan would see them.
    await put(client, exceptionIn("exc-apps", "exempt-a"));
    await put(client, exceptionIn("exc-allowed", "exempt-b"));
    const results = async () => {
      const reports = await reportsIn(client, "exc-apps");
      return ["exempt-a", "exempt-b"].map((name) => outcome(reports.get(name)).join());
    };

    const disabled = controllerFor(client);
    await disabled.start();
    await eventually(async () => idle(disabled) && (await results()).every((r) => r !== ""), 10_000, "scan");
    expect(await results()).toEqual(["exc-owner/check-owner=fail", "exc-owner/check-owner=fail"]);
    await disabled.stop();

    const onlyAllowed = controllerFor(client, { exceptionNamespaces: ["exc-allowed"] });
    await onlyAllowed.start();
    await eventually(
      async () => (await results())[1] === "exc-owner/check-owner=skip",
      10_000,
      "the exception from --exceptionNamespace",
    );
    expect((await results())[0]).toBe("exc-owner/check-owner=fail");
    await remove(client, { ...POLICY_REF, name: "exc-owner" });
    await eventually(async () => (await allReports(client)).length === 0, 10_000, "all reports gone");
    await onlyAllowed.stop();
  });
});
