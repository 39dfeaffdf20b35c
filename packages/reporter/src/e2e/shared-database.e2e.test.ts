/**
 * Two replicas on one PostgreSQL database with leader election: only the leader writes (it rebuilds
 * the database from the cluster when it takes over), every replica serves the API from it.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningReporter, startReporter } from "../app/reporter.js";
import { DEFAULT_POSTGRES_URL } from "../testing/backends.js";
import {
  eventually,
  liveResult,
  policyReport,
  startTestCluster,
  type TestCluster,
  testConfig,
} from "../testing/cluster.js";

const POSTGRES = process.env.REPORTER_TEST_POSTGRES_URL ?? DEFAULT_POSTGRES_URL;

async function reportNames(reporter: RunningReporter): Promise<string[]> {
  const response = await fetch(`${reporter.url}/v1/policy-reports`);
  return ((await response.json()) as { items: { name: string }[] }).items.map((i) => i.name).sort();
}

describe.skipIf(POSTGRES === "off")("replicas sharing PostgreSQL under leader election", () => {
  let cluster: TestCluster;
  const schema = `reporter_t_${randomBytes(5).toString("hex")}`;
  const admin = new pg.Client({ connectionString: POSTGRES });

  beforeAll(async () => {
    cluster = await startTestCluster({ namespaces: ["shop", "hidden"] });
    await admin.connect();
    await admin.query(`create schema "${schema}"`);
  });
  afterAll(async () => {
    await admin.query(`drop schema if exists "${schema}" cascade`);
    await admin.end();
    await cluster?.stop();
  });

  it("writes only from the leader and rebuilds on takeover; both replicas serve the data", async () => {
    const url = new URL(POSTGRES);
    url.searchParams.set("options", `-c search_path=${schema}`);
    const base = {
      database: { type: "postgres", dsn: url.toString() },
      leaderElection: {
        enabled: true,
        lockName: `pg-${schema.replaceAll("_", "-")}`,
        leaseDuration: 3,
        renewDeadline: 2,
        retryPeriod: 1,
      },
    };
    await cluster.apply(policyReport({ name: "before", namespace: "shop", results: [liveResult()] }));
    // The first replica ignores namespace "hidden": only a write by the second could put it in the database.
    const leader = await startReporter({
      config: testConfig({
        ...base,
        leaderElection: { ...base.leaderElection, podName: "replica-a" },
        reportFilter: { namespaces: { exclude: ["hidden"] } },
      }),
      client: cluster.client,
      port: 0,
      host: "127.0.0.1",
    });
    let follower: RunningReporter | undefined;
    try {
      await leader.synced;
      await eventually(() => leader.isLeader(), 5000, "the first replica leading");
      follower = await startReporter({
        config: testConfig({ ...base, leaderElection: { ...base.leaderElection, podName: "replica-b" } }),
        client: cluster.client,
        port: 0,
        host: "127.0.0.1",
      });
      await follower.synced;
      expect(follower.isLeader()).toBe(false);
      const f = follower;
      // The leader's rebuild fills the shared database; the follower serves it.
      await eventually(async () => (await reportNames(f)).includes("before"), 5000, "the rebuilt database");

      await cluster.apply(policyReport({ name: "during", namespace: "shop", results: [liveResult()] }));
      await cluster.apply(policyReport({ name: "secret", namespace: "hidden", results: [liveResult()] }));
      await eventually(
        async () => (await reportNames(f)).length === 2,
        5000,
        "a report written by the leader",
      );
      // The follower ingested the hidden report (its metrics show it) but did not write it.
      await f.settled();
      await leader.settled();
      expect(await f.metrics.expose()).toContain('namespace="hidden"');
      expect(await reportNames(f)).toEqual(["before", "during"]);

      // The leader goes; the follower takes over and rebuilds the database from its own view.
      await leader.stop();
      await eventually(() => f.isLeader(), 5000, "takeover");
      await eventually(async () => (await reportNames(f)).length === 3, 5000, "rebuild");
      expect(await reportNames(f)).toEqual(["before", "during", "secret"]);
      await cluster.remove("wgpolicyk8s.io/v1alpha2", "PolicyReport", "before", "shop");
      await eventually(async () => (await reportNames(f)).length === 2, 5000, "writes by the new leader");
    } finally {
      await Promise.all([leader.stop(), follower?.stop()]);
    }
  }, 20_000);
});
