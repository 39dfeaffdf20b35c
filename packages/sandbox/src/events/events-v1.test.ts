import type { JsonObject, KubeObject } from "@kyverno-ts/api";
import { createKubeClient } from "@kyverno-ts/kube";
import { kubectlAvailable, kubectlFor } from "@kyverno-ts/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../sandbox.js";
import { eventFromV1, eventToV1 } from "./events-v1.js";

const v1Event = (name: string): KubeObject => ({
  apiVersion: "events.k8s.io/v1",
  kind: "Event",
  metadata: { name, namespace: "default" },
  regarding: { apiVersion: "v1", kind: "Pod", name: "web", namespace: "default", uid: "u-1" },
  related: { apiVersion: "kyverno.io/v1", kind: "ClusterPolicy", name: "require-labels" },
  reason: "PolicyViolation",
  note: "policy require-labels/check-team fail: label team is required",
  type: "Warning",
  action: "Resource Passed",
  eventTime: "2026-01-02T03:04:05.000000Z",
  reportingController: "kyverno-admission",
  reportingInstance: "kyverno-admission-pod-1",
});

describe("events.k8s.io/v1 conversion", () => {
  it("renames the fields both ways and keeps the shared ones", () => {
    const stored = eventFromV1({ ...v1Event("a"), deprecatedCount: 3 } as JsonObject);
    expect(stored).toMatchObject({
      apiVersion: "v1",
      involvedObject: { kind: "Pod", name: "web" },
      message: "policy require-labels/check-team fail: label team is required",
      reportingComponent: "kyverno-admission",
      reportingInstance: "kyverno-admission-pod-1",
      count: 3,
      action: "Resource Passed",
    });
    expect(stored).not.toHaveProperty("regarding");
    expect(stored).not.toHaveProperty("note");
    expect(eventToV1(stored)).toEqual({ ...v1Event("a"), deprecatedCount: 3 });
  });
});

describe("the sandbox serves events.k8s.io/v1 over the core/v1 Events' storage", { timeout: 30_000 }, () => {
  let sandbox: Sandbox;
  let client: ReturnType<typeof createKubeClient>;
  beforeAll(async () => {
    sandbox = await startSandbox({ admission: false });
    client = createKubeClient({ kubeconfigPath: sandbox.kubeconfigPath, qps: 0 });
  });
  afterAll(async () => {
    client.close();
    await sandbox.stop();
  });

  it("an Event written through events.k8s.io/v1 is read, selected and patched through core/v1", async () => {
    const created = await client.create(v1Event("web.1"));
    if (!created.ok) throw new Error(created.message);
    expect(created.value.apiVersion).toBe("events.k8s.io/v1");
    const listed = await client.list<KubeObject>({
      apiVersion: "v1",
      kind: "Event",
      namespace: "default",
      fieldSelector: "involvedObject.name=web,involvedObject.kind=Pod,reason=PolicyViolation",
    });
    if (!listed.ok) throw new Error(listed.message);
    expect(listed.value.items).toHaveLength(1);
    expect(listed.value.items[0]).toMatchObject({
      apiVersion: "v1",
      involvedObject: { name: "web", uid: "u-1" },
      message: "policy require-labels/check-team fail: label team is required",
      reportingComponent: "kyverno-admission",
      eventTime: "2026-01-02T03:04:05.000000Z",
    });
    const patched = await client.patch(
      { apiVersion: "events.k8s.io/v1", kind: "Event", namespace: "default", name: "web.1" },
      { type: "merge", patch: { series: { count: 4, lastObservedTime: "2026-01-02T03:05:05.000000Z" } } },
    );
    if (!patched.ok) throw new Error(patched.message);
    const core = await client.get<KubeObject>({
      apiVersion: "v1",
      kind: "Event",
      namespace: "default",
      name: "web.1",
    });
    if (!core.ok) throw new Error(core.message);
    expect(core.value.series).toEqual({ count: 4, lastObservedTime: "2026-01-02T03:05:05.000000Z" });
  });

  it("rejects what kube-apiserver rejects through events.k8s.io/v1, naming the field", async () => {
    const { eventTime: _t, ...noTime } = v1Event("web.2");
    const missing = await client.create(noTime as KubeObject);
    expect(missing.ok).toBe(false);
    if (!missing.ok) {
      expect(missing.status).toBe(422);
      expect(missing.message).toContain("eventTime");
    }
    const legacy = await client.create({ ...v1Event("web.3"), deprecatedCount: 2 });
    expect(legacy.ok).toBe(false);
    if (!legacy.ok) expect(legacy.message).toContain("deprecatedCount");
    const series = await client.create({ ...v1Event("web.4"), series: { count: 1 } });
    expect(series.ok).toBe(false);
    if (!series.ok) expect(series.message).toContain("series.count");
  });

  it.skipIf(!kubectlAvailable())(
    "kubectl get events lists it with its series count's last time",
    async () => {
      const kubectl = kubectlFor(sandbox.kubeconfigPath);
      const plain = await kubectl(["get", "events", "-n", "default"]);
      expect(plain.stderr).toBe("");
      // LAST SEEN is the series' last observation as an age (kube-apiserver's printer), not a timestamp.
      expect(plain.stdout).toMatch(/^\S+\s+Warning\s+PolicyViolation\s+pod\/web\s+policy require-labels/m);
      expect(plain.stdout).not.toContain("2026-01-02T03:05:05");
      const v1 = await kubectl([
        "get",
        "events.events.k8s.io",
        "-n",
        "default",
        "-o",
        "jsonpath={.items[*].note}",
      ]);
      expect(v1.stdout).toContain("label team is required");
    },
  );
});
