import { createManualClock, type ManualClock } from "@kyverno-ts/api";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ReporterError } from "../errors.js";
import { createMetrics, METRIC_NAMES, type ReporterMetrics } from "../metrics/metrics.js";
import { reportId } from "../model/ids.js";
import { createStore } from "../store/connect.js";
import type { ReportStore, WriteOp } from "../store/types.js";
import { pod, report, result } from "../testing/fixtures.js";
import { createIngest, type IngestEvent, type IngestOptions } from "./ingest.js";

const web = (statuses: string[], namespace = "team-a") =>
  report({
    name: "pol-web",
    namespace,
    scope: pod("web", namespace),
    results: statuses.map((s, i) => result({ rule: `r${i}`, result: s })),
  });
const webId = reportId("team-a", "pol-web");

async function counter(metrics: ReporterMetrics, name: string): Promise<Record<string, number>> {
  const metric = (await metrics.registry.getMetricsAsJSON()).find((m) => m.name === name);
  return Object.fromEntries((metric?.values ?? []).map((v) => [String(v.labels.code), v.value]));
}

describe("ingest", () => {
  let store: ReportStore;
  let clock: ManualClock;
  let metrics: ReporterMetrics;
  let events: string[];
  const setup = (options: Partial<IngestOptions> = {}) =>
    createIngest({
      store,
      metrics,
      clock,
      listeners: [
        {
          name: "recorder",
          handle: (e: IngestEvent) => {
            events.push(e.type === "deleted" ? `deleted` : `${e.type}:${e.report.results.length}`);
          },
        },
      ],
      ...options,
    });
  const statuses = async () => (await store.countBy(["status"], {})).map((r) => `${r.status}=${r.count}`);

  beforeEach(async () => {
    store = await createStore({ type: "sqlite" });
    clock = createManualClock();
    metrics = createMetrics();
    events = [];
  });
  afterEach(async () => {
    await store.close();
  });

  it("stores reports, updates metrics and tells listeners in order", async () => {
    const ingest = setup();
    expect(await ingest.upsert(web(["fail", "pass"]))).toMatchObject({ status: "stored", reportId: webId });
    expect(await statuses()).toEqual(["fail=1", "pass=1"]);
    await ingest.upsert(web(["pass"]));
    expect(await statuses()).toEqual(["pass=1"]);
    expect(
      await ingest.delete({ kind: "PolicyReport", metadata: { name: "pol-web", namespace: "team-a" } }),
    ).toMatchObject({
      status: "deleted",
    });
    await ingest.flush();
    expect(await store.reportIds()).toEqual([]);
    expect(events).toEqual(["added:2", "updated:1", "deleted"]);
    expect(await metrics.expose()).not.toContain("policy_report_result{");
  });

  it("rejects malformed reports and counts every problem", async () => {
    const ingest = setup();
    const out = await ingest.upsert({ kind: "PolicyReport", metadata: {} });
    expect(out).toMatchObject({
      status: "invalid",
      error: { code: "REPORT_INVALID", path: "metadata.name" },
    });
    await ingest.upsert(
      report({ name: "x", namespace: "n", results: [result({ result: "maybe" }), result()] }),
    );
    expect(await counter(metrics, METRIC_NAMES.issues)).toEqual({
      REPORT_INVALID: 1,
      RESULT_UNKNOWN_STATUS: 1,
    });
    expect(await statuses()).toEqual(["pass=1"]);
    expect((await ingest.delete("nonsense")).status).toBe("invalid");
  });

  it("applies reportFilter", async () => {
    const ingest = setup({
      filters: { reportFilter: { namespaces: { exclude: ["kube-*"] }, disableClusterReports: true } },
    });
    expect(await ingest.upsert(web(["fail"], "kube-system"))).toMatchObject({
      status: "filtered",
      reason: "reportFilter.namespaces",
    });
    expect((await ingest.upsert(report({ name: "c", results: [result()] }))).status).toBe("filtered");
    expect((await ingest.upsert(web(["fail"]))).status).toBe("stored");
    expect(await store.values("namespace", {})).toEqual(["team-a"]);
  });

  it("applies sourceFilters: kinds, namespaces and uncontrolledOnly with the controller lookup", async () => {
    const lookups: string[] = [];
    const ingest = setup({
      filters: {
        sourceFilters: [
          {
            selector: { sources: ["kyverno"] },
            uncontrolledOnly: true,
            kinds: { exclude: ["ReplicationController"] },
            namespaces: { exclude: ["ignored"] },
          },
        ],
        isControlled: async (scope) => {
          lookups.push(`${scope.kind}/${scope.name}`);
          return scope.name.startsWith("owned");
        },
      },
    });
    const scoped = (name: string, kind: string, source = "kyverno", namespace = "n") =>
      report({
        name: `r-${name}`,
        namespace,
        scope: { kind, name, namespace, uid: name },
        results: [result({ source })],
      });
    expect((await ingest.upsert(scoped("owned-pod", "Pod"))).status).toBe("filtered");
    expect((await ingest.upsert(scoped("lonely-pod", "Pod"))).status).toBe("stored");
    expect((await ingest.upsert(scoped("owned-deploy", "Deployment"))).status).toBe("stored");
    expect((await ingest.upsert(scoped("rc", "ReplicationController"))).status).toBe("filtered");
    expect((await ingest.upsert(scoped("x", "Pod", "kyverno", "ignored"))).status).toBe("filtered");
    expect((await ingest.upsert(scoped("owned-trivy", "Pod", "trivy"))).status).toBe("stored");
    expect(lookups).toEqual(["Pod/owned-pod", "Pod/lonely-pod"]);
  });

  it("holds an update that empties a report for a minute, dropped if a non-empty update comes first", async () => {
    const ingest = setup();
    await ingest.upsert(web(["fail", "fail"]));
    expect((await ingest.upsert(web([]))).status).toBe("held");
    expect(ingest.held()).toBe(1);
    clock.advance(59_000);
    await ingest.flush();
    expect(await statuses()).toEqual(["fail=2"]);
    expect((await ingest.upsert(web(["pass"]))).status).toBe("stored");
    expect(ingest.held()).toBe(0);
    clock.advance(120_000);
    await ingest.flush();
    expect(await statuses()).toEqual(["pass=1"]);

    expect((await ingest.upsert(web([]))).status).toBe("held");
    expect((await ingest.upsert(web([]))).status).toBe("held");
    clock.advance(60_000);
    await ingest.flush();
    expect(await statuses()).toEqual([]);
    expect(await store.reportIds()).toEqual([webId]);
    expect(events).toEqual(["added:2", "updated:1", "updated:0"]);
  });

  it("stores a new empty report at once and lets a delete cancel a hold", async () => {
    const ingest = setup();
    expect((await ingest.upsert(web([]))).status).toBe("stored");
    await ingest.upsert(web(["fail"]));
    expect((await ingest.upsert(web([]))).status).toBe("held");
    await ingest.delete(web([]));
    expect(clock.pending()).toBe(0);
    await ingest.flush();
    expect(await store.reportIds()).toEqual([]);
  });

  it("batches a burst of upserts into few transactions", async () => {
    const write = vi.spyOn(store, "write");
    const ingest = setup({ maxBatch: 50 });
    const outcomes = await Promise.all(
      Array.from({ length: 120 }, (_, i) =>
        ingest.upsert(report({ name: `r${i}`, namespace: "n", results: [result({ result: "fail" })] })),
      ),
    );
    expect(outcomes.every((o) => o.status === "stored")).toBe(true);
    expect(write.mock.calls.length).toBeLessThanOrEqual(4);
    expect(await statuses()).toEqual(["fail=120"]);
  });

  it("retries failed writes with backoff, isolating a report that always fails", async () => {
    const realWrite = store.write.bind(store);
    let failures = 1;
    store.write = async (ops: readonly WriteOp[]) => {
      if (failures-- > 0) throw new ReporterError("STORE_DISK_FULL", "database or disk is full");
      if (ops.some((op) => op.type === "upsert" && op.report.name === "poison")) {
        throw new ReporterError("STORE_WRITE_FAILED", "constraint violated");
      }
      return realWrite(ops);
    };
    const ingest = setup({ writeAttempts: 3, writeBackoffMs: 1000 });
    const good = ingest.upsert(report({ name: "good", namespace: "n", results: [result()] }));
    const poison = ingest.upsert(report({ name: "poison", namespace: "n", results: [result()] }));
    // First batch hits the full disk: the store is behind, the batch retried whole after 1 s (no attempt used).
    await vi.waitFor(() => expect(clock.pending()).toBe(1));
    expect(ingest.storeBehind()).toMatchObject({ pending: 2, code: "STORE_DISK_FULL" });
    clock.advance(1000);
    // Second try: the batch fails because of the poison report, is split, good is written.
    expect(await good).toMatchObject({ status: "stored" });
    expect(ingest.storeBehind()).toBeUndefined();
    // The poison report alone: attempts 1 and 2 retried after 1 s and 2 s, the third is the last.
    await vi.waitFor(() => expect(clock.pending()).toBe(1));
    clock.advance(1000);
    await vi.waitFor(() => expect(clock.pending()).toBe(1));
    clock.advance(2000);
    const failed = await poison;
    expect(failed).toMatchObject({ status: "failed", error: { code: "STORE_WRITE_FAILED" } });
    expect(await counter(metrics, METRIC_NAMES.storeErrors)).toEqual({
      STORE_DISK_FULL: 1,
      STORE_WRITE_FAILED: 4,
    });
    expect(await store.reportIds()).toEqual([reportId("n", "good")]);
    await ingest.flush();
  });

  it("keeps every write while the store is unreachable, however many rounds, and reports the store behind", async () => {
    const seed = setup();
    await seed.upsert(report({ name: "gone", namespace: "n", results: [result()] }));
    await seed.upsert(web(["fail"]));
    await seed.close();
    const realWrite = store.write.bind(store);
    const realPing = store.ping.bind(store);
    let down = true;
    const unreachable = () => new ReporterError("STORE_WRITE_FAILED", "connect ECONNREFUSED");
    store.write = (ops: readonly WriteOp[]) => (down ? Promise.reject(unreachable()) : realWrite(ops));
    store.ping = () => (down ? Promise.reject(unreachable()) : realPing());
    const lines: string[] = [];
    const record = (_f: unknown, m: string) => lines.push(m);
    const ingest = setup({
      writeAttempts: 2,
      writeBackoffMs: 100,
      writeMaxBackoffMs: 1000,
      logger: { debug() {}, info: record, warn: record, error: record },
    });
    const changed = ingest.upsert(web(["pass", "pass"]));
    const created = ingest.upsert(report({ name: "new", namespace: "m", results: [result()] }));
    const deleted = ingest.delete({ kind: "PolicyReport", metadata: { name: "gone", namespace: "n" } });
    // Twenty retry rounds (far more than the 2 attempts a refused report gets); events keep arriving.
    for (let round = 0; round < 20; round++) {
      await vi.waitFor(() => expect(clock.pending()).toBe(1));
      expect(ingest.storeBehind()).toMatchObject({ pending: 3, code: "STORE_WRITE_FAILED" });
      clock.advance(1000);
    }
    expect(lines.filter((l) => l.startsWith("dropping"))).toEqual([]);
    // At most one line per retry round, not one per report.
    await vi.waitFor(() => expect(clock.pending()).toBe(1));
    expect(lines.length).toBeLessThanOrEqual(21);
    down = false;
    clock.advance(1000);
    expect(await changed).toMatchObject({ status: "stored" });
    expect(await created).toMatchObject({ status: "stored" });
    expect(await deleted).toMatchObject({ status: "deleted" });
    expect(ingest.storeBehind()).toBeUndefined();
    expect((await store.reportIds()).sort()).toEqual([reportId("m", "new"), webId].sort());
    // web changed from one fail to two passes; new has one pass.
    expect(await statuses()).toEqual(["pass=3"]);
    await ingest.flush();
  });

  it("lets a newer operation supersede one waiting for a retry", async () => {
    const realWrite = store.write.bind(store);
    let failures = 1;
    store.write = async (ops: readonly WriteOp[]) => {
      if (failures-- > 0) throw new ReporterError("STORE_WRITE_FAILED", "flaky");
      return realWrite(ops);
    };
    const ingest = setup();
    const first = ingest.upsert(web(["fail"]));
    await vi.waitFor(() => expect(clock.pending()).toBe(1));
    expect(await ingest.upsert(web(["pass", "pass"]))).toMatchObject({ status: "stored" });
    expect(await first).toMatchObject({ status: "superseded" });
    clock.advance(10_000);
    await ingest.close();
    expect(await statuses()).toEqual(["pass=2"]);
  });

  it("keeps going when a listener throws", async () => {
    const errors: string[] = [];
    const ingest = createIngest({
      store,
      clock,
      listeners: [{ name: "broken", handle: () => Promise.reject(new Error("boom")) }],
      logger: { debug() {}, info() {}, warn() {}, error: (_f, m) => errors.push(m) },
    });
    expect((await ingest.upsert(web(["fail"]))).status).toBe("stored");
    await ingest.flush();
    expect(errors).toEqual(["report listener failed"]);
  });
});
