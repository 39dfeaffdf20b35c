/** The writer against the sandbox: writes only changes, and repairs what its index got wrong. */
import type { AnyPolicyReport, PolicyReportResult } from "@kyverno-ts/api";
import type { KubeClient } from "@kyverno-ts/kube";
import type { Sandbox } from "@kyverno-ts/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { countingClient, namespace, put, startCluster } from "../controllers/reports/testing/harness.js";
import { buildResourceReport } from "./report-builder.js";
import { createReportIndex } from "./report-index.js";
import { createReportWriter } from "./report-writer.js";

const result = (status: PolicyReportResult["result"]): PolicyReportResult => ({
  source: "kyverno",
  policy: "p",
  rule: "r",
  result: status,
  message: `it is ${status}`,
  scored: true,
  timestamp: { seconds: 1, nanos: 0 },
});
/** A report of a Pod that does not exist, without the owner reference the garbage collector would follow. */
function reportFor(uid: string, status: PolicyReportResult["result"]): AnyPolicyReport {
  const scope = { apiVersion: "v1", kind: "Pod", namespace: "w", name: `pod-${uid}`, uid };
  const report = buildResourceReport(scope, [result(status)]);
  const { ownerReferences: _owners, ...metadata } = report.metadata;
  return { ...report, metadata };
}

describe("report writer (sandbox)", { timeout: 20_000 }, () => {
  let sandbox: Sandbox;
  let client: KubeClient;
  beforeAll(async () => {
    ({ sandbox, client } = await startCluster());
    await put(client, namespace("w"));
  });
  afterAll(async () => {
    client?.close();
    await sandbox?.stop();
  });

  it("creates, skips unchanged content, updates changes and deletes, only while allowed", async () => {
    const counted = countingClient(sandbox);
    const index = createReportIndex({ client: counted.client });
    expect((await index.load()).ok).toBe(true);
    let allowed = true;
    const writer = createReportWriter({ client: counted.client, index, canWrite: () => allowed });
    const at = { namespace: "w", name: "a" };
    expect(await writer.apply(reportFor("a", "fail"))).toMatchObject({ ok: true, value: "created" });
    expect(await writer.apply(reportFor("a", "fail"))).toMatchObject({ ok: true, value: "unchanged" });
    expect(await writer.apply(reportFor("a", "pass"))).toMatchObject({ ok: true, value: "updated" });
    expect(counted.writes()).toBe(2);
    allowed = false;
    expect(await writer.apply(reportFor("a", "fail"))).toMatchObject({ ok: true, value: "skipped" });
    expect(await writer.remove(at, { known: false })).toMatchObject({ ok: true, value: "skipped" });
    allowed = true;
    expect(await writer.remove(at, { known: true })).toMatchObject({ ok: true, value: "deleted" });
    expect(await writer.remove(at, { known: true })).toMatchObject({ ok: true, value: "unchanged" });
    expect(counted.writes()).toBe(3);
  });

  it("repairs a stale index: reports created, changed or deleted behind its back", async () => {
    const index = createReportIndex({ client });
    await index.load();
    const writer = createReportWriter({ client, index, canWrite: () => true });
    const read = async (name: string) => (await writer.read({ namespace: "w", name })).ok;

    // Created by someone else after the index was loaded: AlreadyExists, then compared and updated.
    await client.create(reportFor("b", "fail"));
    expect(await writer.apply(reportFor("b", "pass"))).toMatchObject({ ok: true, value: "updated" });
    await client.create(reportFor("c", "fail"));
    expect(await writer.apply(reportFor("c", "fail"))).toMatchObject({ ok: true, value: "unchanged" });

    // Changed by someone else: the update conflicts, is re-read and written over.
    const current = await client.get<AnyPolicyReport>({
      apiVersion: "wgpolicyk8s.io/v1alpha2",
      kind: "PolicyReport",
      namespace: "w",
      name: "b",
    });
    if (!current.ok) throw new Error(current.message);
    expect((await client.update({ ...current.value, results: [result("warn")] })).ok).toBe(true);
    expect(await writer.apply(reportFor("b", "skip"))).toMatchObject({ ok: true, value: "updated" });

    // Deleted by someone else: the update finds nothing and creates it again.
    await client.delete({
      apiVersion: "wgpolicyk8s.io/v1alpha2",
      kind: "PolicyReport",
      namespace: "w",
      name: "b",
    });
    expect(await writer.apply(reportFor("b", "fail"))).toMatchObject({ ok: true, value: "created" });
    expect(await read("b")).toBe(true);

    // A fresh index sees all of it, with content digests that match what was written.
    const fresh = createReportIndex({ client });
    await fresh.load();
    expect(fresh.get("w", "b")?.digest).toBe(index.get("w", "b")?.digest);
    expect(fresh.get("w", "c")?.policies).toEqual(["p"]);
  });
});
