/**
 * A PostgreSQL outage while reports are created, changed and deleted in the cluster: the reporter
 * (connected through a TCP proxy the test cuts and restores) keeps every write, answers `/ready` 503
 * with the reason while the store is behind, and converges to the cluster once the database is back.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningReporter, startReporter } from "../app/reporter.js";
import { METRIC_NAMES } from "../metrics/metrics.js";
import { DEFAULT_POSTGRES_URL } from "../testing/backends.js";
import {
  eventually,
  liveResult,
  metricValues,
  policyReport,
  startTestCluster,
  type TestCluster,
  testConfig,
} from "../testing/cluster.js";
import { startTcpProxy, type TcpProxy } from "../testing/tcp-proxy.js";

const POSTGRES = process.env.REPORTER_TEST_POSTGRES_URL ?? DEFAULT_POSTGRES_URL;

interface Summary {
  name: string;
  namespace?: string;
  pass: number;
  fail: number;
}

async function summaries(reporter: RunningReporter): Promise<string[] | undefined> {
  const response = await fetch(`${reporter.url}/v1/policy-reports`);
  if (response.status !== 200) return undefined;
  const { items } = (await response.json()) as { items: Summary[] };
  return items.map((i) => `${i.namespace}/${i.name} pass=${i.pass} fail=${i.fail}`).sort();
}

async function ready(reporter: RunningReporter): Promise<{ status: number; error?: string }> {
  const response = await fetch(`${reporter.url}/ready`);
  const body = (await response.json()) as { error?: string };
  return { status: response.status, ...(body.error ? { error: body.error } : {}) };
}

describe.skipIf(POSTGRES === "off")("reporter through a PostgreSQL outage", { timeout: 60_000 }, () => {
  let cluster: TestCluster;
  let proxy: TcpProxy;
  const schema = `reporter_t_${randomBytes(5).toString("hex")}`;
  const admin = new pg.Client({ connectionString: POSTGRES });

  beforeAll(async () => {
    cluster = await startTestCluster({ namespaces: ["shop", "old"] });
    await admin.connect();
    await admin.query(`create schema "${schema}"`);
    const target = new URL(POSTGRES);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  }, 60_000);
  afterAll(async () => {
    await proxy?.close();
    await admin.query(`drop schema if exists "${schema}" cascade`);
    await admin.end();
    await cluster?.stop();
  });

  it("keeps the writes of reports created, changed and deleted meanwhile, is not ready while behind, and converges", async () => {
    await cluster.apply(policyReport({ name: "kept", namespace: "shop", results: [liveResult()] }));
    await cluster.apply(policyReport({ name: "changed", namespace: "shop", results: [liveResult()] }));
    await cluster.apply(policyReport({ name: "deleted", namespace: "old", results: [liveResult()] }));
    const url = new URL(POSTGRES);
    url.port = String(proxy.port);
    url.searchParams.set("options", `-c search_path=${schema}`);
    const reporter = await startReporter({
      config: testConfig({ database: { type: "postgres", dsn: url.toString() } }),
      client: cluster.client,
      port: 0,
      host: "127.0.0.1",
      // Retries every 100 ms doubling to 1 s: the outage below spans many more rounds than the
      // five attempts after which writes used to be dropped.
      storeRetry: { backoffMs: 100, maxBackoffMs: 1000 },
    });
    try {
      await reporter.synced;
      expect(await summaries(reporter)).toEqual([
        "old/deleted pass=0 fail=1",
        "shop/changed pass=0 fail=1",
        "shop/kept pass=0 fail=1",
      ]);

      await proxy.cut();
      await cluster.apply({ apiVersion: "v1", kind: "Namespace", metadata: { name: "fresh" } });
      await cluster.apply(policyReport({ name: "created", namespace: "fresh", results: [liveResult()] }));
      await cluster.apply(
        policyReport({
          name: "changed",
          namespace: "shop",
          results: [liveResult({ result: "pass" }), liveResult({ rule: "second", result: "pass" })],
        }),
      );
      await cluster.remove("wgpolicyk8s.io/v1alpha2", "PolicyReport", "deleted", "old");

      const behind = await eventually(
        async () => {
          const r = await ready(reporter);
          return r.status === 503 ? r : undefined;
        },
        10_000,
        "/ready answering 503 during the outage",
      );
      expect(behind.error).toMatch(
        /^store behind the cluster: 3 report writes waiting since .* for the postgres database/,
      );
      expect(behind.error).not.toContain(String(proxy.port));
      // The outage outlasts the old five attempts (0.1 + 0.2 + 0.4 + 0.8 s) several times over.
      await new Promise((resolve) => setTimeout(resolve, 5000));
      const failures = await metricValues(reporter.metrics, METRIC_NAMES.storeErrors, "code");
      expect(Object.values(failures).reduce((a, b) => a + b, 0)).toBeGreaterThan(5);
      expect((await ready(reporter)).status).toBe(503);
      const health = await fetch(`${reporter.url}/healthz`);
      expect(health.status).toBe(503);
      const healthBody = await health.text();
      expect(healthBody).toContain("database (postgres) not reachable");
      expect(healthBody).not.toContain(String(proxy.port));
      expect(healthBody).not.toContain("127.0.0.1");

      await proxy.restore();
      await eventually(
        async () => (await ready(reporter)).status === 200,
        15_000,
        "/ready 200 after the outage",
      );
      expect(await summaries(reporter)).toEqual([
        "fresh/created pass=0 fail=1",
        "shop/changed pass=2 fail=0",
        "shop/kept pass=0 fail=1",
      ]);
      expect((await reporter.store.reportIds()).length).toBe(3);
      expect((await fetch(`${reporter.url}/healthz`)).status).toBe(200);
    } finally {
      await reporter.stop();
    }
  });
});
