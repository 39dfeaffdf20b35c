import { createManualClock, type ManualClock } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { createFakeLeases, type FakeLeases, type Link } from "../testing/fake-leases.js";
import { createLeaderElector, type LeaderElector, type LeaderElectorOptions } from "./elector.js";

interface Replica {
  id: string;
  elector: LeaderElector;
  setLink(link: Link): void;
  started: number[];
  stopped: number[];
  leaders: string[];
}

const replica = (
  id: string,
  leases: FakeLeases,
  clock: ManualClock,
  extra: Partial<LeaderElectorOptions> = {},
): Replica => {
  const { client, setLink } = leases.client();
  const r: Replica = {
    id,
    setLink,
    started: [],
    stopped: [],
    leaders: [],
    elector: undefined as unknown as LeaderElector,
  };
  r.elector = createLeaderElector({
    client,
    namespace: "kyverno",
    name: "kyverno-reports-controller",
    identity: id,
    clock,
    onStartedLeading: () => r.started.push(clock.now()),
    onStoppedLeading: () => {
      r.stopped.push(clock.now());
    },
    onNewLeader: (leader) => r.leaders.push(leader),
    ...extra,
  });
  return r;
};

/** Intervals [start, stop) during which a replica led. */
const intervals = (r: Replica, end: number): Array<[number, number]> =>
  r.started.map((start, i) => [start, r.stopped[i] ?? end]);

const overlaps = (a: Array<[number, number]>, b: Array<[number, number]>): boolean =>
  a.some(([s1, e1]) => b.some(([s2, e2]) => s1 < e2 && s2 < e1));

describe("leader election (fake clock, in-memory leases)", () => {
  it("creates the Lease, leads, and renews every retry period", async () => {
    const clock = createManualClock(1_000_000);
    const leases = createFakeLeases();
    const a = replica("a", leases, clock);
    a.elector.start();
    await clock.settle(0);
    expect(a.elector.isLeader()).toBe(true);
    expect(a.started).toEqual([clock.now()]);
    expect(a.leaders).toEqual(["a"]);
    expect(leases.lease()).toMatchObject({
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: { name: "kyverno-reports-controller", namespace: "kyverno" },
      spec: { holderIdentity: "a", leaseDurationSeconds: 12, leaseTransitions: 0 },
    });
    expect(leases.lease()?.spec?.renewTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    const acquired = leases.lease()?.spec?.acquireTime;
    await clock.settle(10_000);
    expect(leases.writes()).toBe(6); // create + 5 renewals, 2 s apart
    expect(leases.lease()?.spec?.acquireTime).toBe(acquired);
    expect(a.elector.isLeader()).toBe(true);
    await a.elector.release();
  });

  it("a candidate waits while the lease is renewed and reports the leader", async () => {
    const clock = createManualClock(1_000_000);
    const leases = createFakeLeases();
    const a = replica("a", leases, clock);
    const b = replica("b", leases, clock);
    a.elector.start();
    await clock.settle(0);
    b.elector.start();
    await clock.settle(60_000);
    expect(b.started).toEqual([]);
    expect(b.elector.isLeader()).toBe(false);
    expect(b.elector.leader()).toBe("a");
    expect(b.leaders).toEqual(["a"]);
    await Promise.all([a.elector.release(), b.elector.release()]);
  });

  for (const outage of ["hanging", "failing"] as const) {
    it(`when the leader's requests are ${outage}, it steps down at the renew deadline and the other takes over only after the lease expired`, async () => {
      const clock = createManualClock(1_000_000);
      const leases = createFakeLeases();
      const a = replica("a", leases, clock);
      const b = replica("b", leases, clock);
      a.elector.start();
      await clock.settle(0);
      b.elector.start();
      await clock.settle(5_000);
      const lastRenewal = Date.parse(leases.lease()?.spec?.renewTime ?? "");
      a.setLink(outage);
      await clock.settle(30_000);
      expect(a.stopped).toHaveLength(1);
      expect(a.stopped[0]).toBe(lastRenewal + 10_000);
      expect(b.started).toHaveLength(1);
      expect(b.started[0]).toBeGreaterThanOrEqual(lastRenewal + 12_000);
      // b saw the last renewal within one (jittered) retry period, and retries within another
      expect(b.started[0]).toBeLessThanOrEqual(lastRenewal + 12_000 + 2 * 2_400 + 1);
      expect(leases.lease()?.spec).toMatchObject({ holderIdentity: "b", leaseTransitions: 1 });

      // back online, the old leader sees the new one and stays a follower
      a.setLink("up");
      await clock.settle(30_000);
      expect(a.started).toHaveLength(1);
      expect(a.elector.leader()).toBe("b");
      expect(overlaps(intervals(a, clock.now()), intervals(b, clock.now()))).toBe(false);
      await Promise.all([a.elector.release(), b.elector.release()]);
    });
  }

  it("release() steps down first, then empties the holder so another replica takes over at once", async () => {
    const clock = createManualClock(1_000_000);
    const leases = createFakeLeases();
    let holderWhenStopping: string | null | undefined;
    const a = replica("a", leases, clock, {
      onStoppedLeading: () => {
        holderWhenStopping = leases.lease()?.spec?.holderIdentity;
      },
    });
    const b = replica("b", leases, clock);
    a.elector.start();
    await clock.settle(0);
    b.elector.start();
    await clock.settle(3_000);
    const released = clock.now();
    await a.elector.release();
    expect(holderWhenStopping).toBe("a");
    expect(a.elector.isLeader()).toBe(false);
    expect(leases.lease()?.spec).toMatchObject({ holderIdentity: "", leaseDurationSeconds: 1 });
    await clock.settle(3_000);
    expect(b.started).toHaveLength(1);
    expect(b.started[0]).toBeLessThanOrEqual(released + 2_400 + 1);
    expect(leases.lease()?.spec).toMatchObject({ holderIdentity: "b", leaseTransitions: 1 });
    // a released elector does not campaign again
    a.elector.start();
    await clock.settle(60_000);
    expect(a.started).toHaveLength(1);
    await b.elector.release();
  });

  it("the signal given to onStartedLeading aborts when leadership is lost", async () => {
    const clock = createManualClock(1_000_000);
    const leases = createFakeLeases();
    let signal: AbortSignal | undefined;
    const a = replica("a", leases, clock, {
      onStartedLeading: (s) => {
        signal = s;
      },
    });
    a.elector.start();
    await clock.settle(0);
    expect(signal?.aborted).toBe(false);
    a.setLink("hanging");
    await clock.settle(11_000);
    expect(signal?.aborted).toBe(true);
    await a.elector.release();
  });

  it("never has two leaders under random outages of three replicas", async () => {
    const clock = createManualClock(1_000_000);
    const leases = createFakeLeases();
    const replicas = ["a", "b", "c"].map((id) => replica(id, leases, clock));
    for (const r of replicas) r.elector.start();
    let seed = 42;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const links: Link[] = ["up", "up", "up", "failing", "hanging"];
    for (let step = 0; step < 600; step++) {
      if (step % 20 === 0)
        for (const r of replicas) r.setLink(links[Math.floor(random() * links.length)] ?? "up");
      await clock.settle(500);
      expect(replicas.filter((r) => r.elector.isLeader()).length).toBeLessThanOrEqual(1);
    }
    const end = clock.now();
    for (const [i, r] of replicas.entries())
      for (const other of replicas.slice(i + 1))
        expect(overlaps(intervals(r, end), intervals(other, end))).toBe(false);
    expect(replicas.reduce((n, r) => n + r.started.length, 0)).toBeGreaterThanOrEqual(5);
    await Promise.all(replicas.map((r) => r.elector.release()));
  });

  it("refuses inconsistent durations", () => {
    const leases = createFakeLeases();
    const { client } = leases.client();
    const base = { client, namespace: "n", name: "l", identity: "a" };
    expect(() => createLeaderElector({ ...base, leaseDurationMs: 10_000, renewDeadlineMs: 10_000 })).toThrow(
      /leaseDurationMs/,
    );
    expect(() => createLeaderElector({ ...base, renewDeadlineMs: 2_000, retryPeriodMs: 2_000 })).toThrow(
      /retryPeriodMs/,
    );
    expect(() => createLeaderElector({ ...base, identity: "" })).toThrow(/identity/);
  });
});
