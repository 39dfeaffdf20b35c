import { type Sandbox, startSandbox } from "@kyverno-ts/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKubeClient, type KubeClient } from "../client/client.js";
import { until } from "../testing/sandbox.js";
import { createLeaderElector, type LeaderElector } from "./elector.js";
import type { Lease } from "./lease.js";

interface Replica {
  elector: LeaderElector;
  started: number[];
  stopped: number[];
  /** Makes every request of this replica fail, as if its network were cut. */
  cut(): void;
}

/** Short durations, so takeovers happen within seconds: lease 2 s, renew deadline 1.5 s, retry 0.25 s. */
const timing = { leaseDurationMs: 2000, renewDeadlineMs: 1500, retryPeriodMs: 250 };

const overlap = (a: Replica, b: Replica): boolean => {
  const spans = (r: Replica) => r.started.map((s, i): [number, number] => [s, r.stopped[i] ?? Date.now()]);
  return spans(a).some(([s1, e1]) => spans(b).some(([s2, e2]) => s1 < e2 && s2 < e1));
};

describe("leader election against the sandbox", () => {
  let sandbox: Sandbox;
  let client: KubeClient;

  beforeAll(async () => {
    sandbox = await startSandbox();
    client = createKubeClient({ kubeconfigPath: sandbox.kubeconfigPath, qps: 1000, burst: 1000 });
    await client.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "kyverno" } });
  });
  afterAll(async () => {
    client?.close();
    await sandbox?.stop();
  });

  const replica = (identity: string, lease: string): Replica => {
    let down = false;
    const real = createKubeClient({ kubeconfigPath: sandbox.kubeconfigPath });
    const unreachable = { ok: false as const, status: 0, reason: "Unreachable", message: "cut" };
    const flaky: KubeClient = {
      ...real,
      get: (ref, options) => (down ? Promise.resolve(unreachable) : real.get(ref, options)),
      create: (object, options) => (down ? Promise.resolve(unreachable) : real.create(object, options)),
      update: (object, options) => (down ? Promise.resolve(unreachable) : real.update(object, options)),
    };
    const r: Replica = {
      started: [],
      stopped: [],
      cut: () => {
        down = true;
      },
      elector: createLeaderElector({
        client: flaky,
        namespace: "kyverno",
        name: lease,
        identity,
        ...timing,
        onStartedLeading: () => r.started.push(Date.now()),
        onStoppedLeading: () => {
          r.stopped.push(Date.now());
        },
      }),
    };
    return r;
  };

  const readLease = async (name: string): Promise<Lease> => {
    const got = await client.get<Lease>({
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      namespace: "kyverno",
      name,
    });
    if (!got.ok) throw new Error(`lease: ${got.reason}`);
    return got.value;
  };

  it("elects exactly one of three replicas that start together", async () => {
    const replicas = ["r1", "r2", "r3"].map((id) => replica(id, "together"));
    for (const r of replicas) r.elector.start();
    await until(() => replicas.some((r) => r.elector.isLeader()), 3000, "a leader");
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(replicas.filter((r) => r.elector.isLeader())).toHaveLength(1);
    expect(replicas.reduce((n, r) => n + r.started.length, 0)).toBe(1);
    const leader = replicas.find((r) => r.elector.isLeader());
    const lease = await readLease("together");
    expect(replicas.every((r) => r.elector.leader() === lease.spec?.holderIdentity)).toBe(true);
    expect(lease.spec).toMatchObject({ leaseDurationSeconds: 2, leaseTransitions: 0 });
    expect(leader).toBeDefined();
    await Promise.all(replicas.map((r) => r.elector.release()));
  });

  it("hands over at once when the leader releases the lease", async () => {
    const a = replica("a", "handover");
    const b = replica("b", "handover");
    a.elector.start();
    await until(() => a.elector.isLeader(), 3000, "a leads");
    b.elector.start();
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(b.elector.isLeader()).toBe(false);
    expect(b.elector.leader()).toBe("a");
    const released = Date.now();
    await a.elector.release();
    expect((await readLease("handover")).spec?.holderIdentity).toBe("");
    await until(() => b.elector.isLeader(), 3000, "b leads");
    expect((b.started[0] ?? 0) - released).toBeLessThan(1500); // within the 2 s lease: no expiry wait
    expect(a.stopped).toHaveLength(1);
    expect(overlap(a, b)).toBe(false);
    expect((await readLease("handover")).spec).toMatchObject({ holderIdentity: "b", leaseTransitions: 1 });
    await b.elector.release();
  });

  it("takes over a lease whose holder stopped renewing, only after the old leader stepped down", async () => {
    const a = replica("a", "crash");
    const b = replica("b", "crash");
    a.elector.start();
    await until(() => a.elector.isLeader(), 3000, "a leads");
    b.elector.start();
    await new Promise((resolve) => setTimeout(resolve, 500));
    const cutAt = Date.now();
    a.cut();
    await until(() => b.elector.isLeader(), 6000, "b takes over");
    expect(a.stopped).toHaveLength(1);
    expect(a.elector.isLeader()).toBe(false);
    const aStopped = a.stopped[0] ?? 0;
    const bStarted = b.started[0] ?? 0;
    expect(aStopped - cutAt).toBeLessThanOrEqual(timing.renewDeadlineMs + 300); // timer lag under load
    expect(bStarted).toBeGreaterThan(aStopped);
    expect(bStarted - cutAt).toBeGreaterThanOrEqual(timing.leaseDurationMs - timing.retryPeriodMs * 1.2);
    expect(overlap(a, b)).toBe(false);
    expect((await readLease("crash")).spec).toMatchObject({ holderIdentity: "b", leaseTransitions: 1 });
    await Promise.all([a.elector.release(), b.elector.release()]);
  });
});
