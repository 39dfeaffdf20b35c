/** End to end against the sandbox: crashes, restarts, leader election and graceful shutdown. */
import { type AnyPolicyReport, type KubeObject, loadPolicy } from "@kyverno-ts/api";
import { createEngine, policyReportResults, reportSummary } from "@kyverno-ts/engine";
import type { KubeClient } from "@kyverno-ts/kube";
import type { Sandbox } from "@kyverno-ts/sandbox";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startControllerProcess } from "../testing/controller-process.js";
import {
  allReports,
  controllerFor,
  countingClient,
  eventually,
  idle,
  namespace,
  pod,
  put,
  remove,
  requireLabelPolicy,
  startCluster,
} from "../testing/harness.js";
import type { ReportsController } from "../types.js";

const ELECTION = { namespace: "default", leaseDurationMs: 1500, renewDeadlineMs: 1000, retryPeriodMs: 200 };

/** `policy/rule=result: message` lines of a report, sorted. */
const lines = (results: AnyPolicyReport["results"]) =>
  (results ?? []).map((r) => `${r.policy}/${r.rule}=${r.result}: ${r.message}`).sort();

/** What the reports of `pods` must say under `policies`, computed by the engine directly. */
function expected(policies: object[], pods: KubeObject[]): Map<string, string[]> {
  const engine = createEngine();
  const compiled = policies.map((p) => {
    const loaded = loadPolicy(p as Parameters<typeof loadPolicy>[0], { file: "test" });
    if (!loaded.ok) throw new Error("bad policy");
    const c = engine.compile(loaded.value);
    if (!c.ok) throw new Error("policy does not compile");
    return c.policy;
  });
  const out = new Map<string, string[]>();
  for (const p of pods) {
    const results = compiled.flatMap((c) =>
      policyReportResults(engine.validate(c, { resource: p, background: true })),
    );
    if (results.length > 0) out.set(String(p.metadata?.uid), lines(results));
  }
  return out;
}

async function createPods(client: KubeClient, ns: string, names: string[], labelled: (i: number) => boolean) {
  const created: KubeObject[] = [];
  for (let i = 0; i < names.length; i += 25) {
    const batch = names.slice(i, i + 25);
    created.push(
      ...(await Promise.all(
        batch.map((name, j) => put(client, pod(name, ns, labelled(i + j) ? { labels: { team: "x" } } : {}))),
      )),
    );
  }
  return created;
}

describe("reports controller: crashes and replicas (sandbox)", { timeout: 30_000 }, () => {
  let sandbox: Sandbox;
  let client: KubeClient;
  const controllers: ReportsController[] = [];
  beforeEach(async () => {
    ({ sandbox, client } = await startCluster());
  });
  afterEach(async () => {
    await Promise.all(controllers.splice(0).map((c) => c.abort()));
    client?.close();
    await sandbox?.stop();
  });

  it("a controller SIGKILLed mid-scan is replaced by one that converges: nothing lost, duplicated or stale", async () => {
    await put(client, namespace("fleet"));
    const names = Array.from({ length: 150 }, (_, i) => `pod-${String(i).padStart(3, "0")}`);
    let pods = await createPods(client, "fleet", names, (i) => i % 3 !== 0);
    const team = requireLabelPolicy("require-team", "team");
    const app = requireLabelPolicy("require-app", "app");
    await put(client, team);
    await put(client, app);

    // A real process, SIGKILLed half-way through its first scan.
    const a = await startControllerProcess(sandbox.kubeconfigPath, "a", 60);
    const written = async () => (await allReports(client)).length;
    await eventually(async () => (await written()) >= 20, 15_000, "A half-way").catch((error: Error) => {
      throw new Error(`${error.message}\n${a.output()}`);
    });
    await a.kill();
    const byA = await written();
    expect(byA).toBeLessThan(150);

    // While nobody runs: a policy goes, failing Pods are fixed, Pods go (orphaning their reports), Pods come.
    await remove(client, { apiVersion: "kyverno.io/v1", kind: "ClusterPolicy", name: "require-app" });
    const fixed = names.filter((_, i) => i % 3 === 0).slice(0, 10);
    await Promise.all(fixed.map((n) => put(client, pod(n, "fleet", { labels: { team: "y" } }))));
    const gone = names.slice(140);
    for (const n of gone)
      await client.delete(
        { apiVersion: "v1", kind: "Pod", namespace: "fleet", name: n },
        { propagationPolicy: "Orphan" },
      );
    await createPods(client, "fleet", ["late-1", "late-2", "late-3"], () => false);

    const b = controllerFor(client, { leaderElection: { ...ELECTION, identity: "b" } });
    controllers.push(b);
    await b.start();
    await eventually(() => idle(b), 15_000, "B converged");

    const listed = await client.list<KubeObject>({ apiVersion: "v1", kind: "Pod", namespace: "fleet" });
    if (!listed.ok) throw new Error(listed.message);
    pods = listed.value.items;
    const want = expected([team], pods);
    const reports = (await allReports(client)).filter((r) => r.metadata.namespace === "fleet");
    const got = new Map(reports.map((r) => [r.metadata.name, lines(r.results)]));
    expect(got.size).toBe(pods.length);
    expect(got).toEqual(want);
    for (const r of reports) {
      expect(r.summary).toEqual(reportSummary(r.results ?? []));
      expect(r.scope?.uid).toBe(r.metadata.name);
    }
    const lease = await client.get<KubeObject>({
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      namespace: "default",
      name: "kyverno-reports-controller",
    });
    expect(lease.ok && (lease.value.spec as { holderIdentity?: string }).holderIdentity).toBe("b");
  });

  it("with two replicas only the leader writes, and the other takes over when it steps down", async () => {
    await put(client, namespace("pair"));
    await createPods(client, "pair", ["p1", "p2", "p3", "p4", "p5", "p6"], (i) => i % 2 === 0);
    await put(client, requireLabelPolicy("require-team", "team"));
    const first = countingClient(sandbox);
    const second = countingClient(sandbox);
    const a = controllerFor(first.client, { leaderElection: { ...ELECTION, identity: "a" } });
    const b = controllerFor(second.client, { leaderElection: { ...ELECTION, identity: "b" } });
    controllers.push(a, b);
    await Promise.all([a.start(), b.start()]);
    await eventually(() => idle(a) || idle(b), 10_000, "a leader scanned");
    const [leader, follower, leaderWrites, followerWrites] = a.isLeader()
      ? [a, b, first.writes, second.writes]
      : [b, a, second.writes, first.writes];
    expect(follower.isLeader()).toBe(false);
    await eventually(async () => (await allReports(client)).length === 6, 5000, "six reports");
    await createPods(client, "pair", ["p7", "p8"], () => false);
    await eventually(async () => (await allReports(client)).length === 8, 5000, "eight reports");
    expect(leaderWrites()).toBe(8);
    expect(followerWrites()).toBe(0);

    await leader.stop();
    await eventually(() => idle(follower), 10_000, "the follower leads and scanned");
    await createPods(client, "pair", ["p9"], () => false);
    await eventually(async () => (await allReports(client)).length === 9, 5000, "nine reports");
    // The new leader's startup scan found the eight reports unchanged: it wrote only the new one.
    expect(followerWrites()).toBe(1);
    expect(leaderWrites()).toBe(8);
  });

  it("abort() stops like a crash: nothing more is written and the lease is not handed back", async () => {
    await put(client, namespace("crash"));
    await put(client, requireLabelPolicy("require-team", "team"));
    await createPods(
      client,
      "crash",
      Array.from({ length: 60 }, (_, i) => `c${i}`),
      () => false,
    );
    const slow = countingClient(sandbox, { qps: 60, burst: 5 });
    const c = controllerFor(slow.client, { leaderElection: { ...ELECTION, identity: "crashing" } });
    controllers.push(c);
    await c.start();
    await eventually(() => c.stats().created >= 5, 10_000, "scan started");
    await c.abort();
    const writes = slow.writes();
    expect(c.stats().created).toBeLessThan(60);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(slow.writes()).toBe(writes);
    const lease = await client.get<KubeObject>({
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      namespace: "default",
      name: "kyverno-reports-controller",
    });
    expect(lease.ok && (lease.value.spec as { holderIdentity?: string }).holderIdentity).toBe("crashing");
  });

  it("graceful shutdown finishes the queued work", async () => {
    await put(client, namespace("drain"));
    await put(client, requireLabelPolicy("require-team", "team"));
    await createPods(
      client,
      "drain",
      Array.from({ length: 60 }, (_, i) => `d${i}`),
      () => false,
    );
    const slow = countingClient(sandbox, { qps: 100, burst: 5 });
    const c = controllerFor(slow.client, { workers: 1 });
    await c.start();
    await eventually(() => c.stats().scans > 0 && c.stats().created > 0, 5000, "scan started");
    expect(c.stats().created).toBeLessThan(60);
    await c.stop();
    expect((await allReports(client)).length).toBe(60);
    expect(c.stats().queued).toBe(0);
  });
});
