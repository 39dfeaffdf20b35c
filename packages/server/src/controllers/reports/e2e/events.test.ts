/** End to end against the sandbox: a background scan's violation is a `kyverno-scan` Event on the resource and on the policy. */
import type { KubeObject } from "@kyverno-ts/api";
import { createKubeClient, type KubeClient } from "@kyverno-ts/kube";
import { type Sandbox, startSandbox } from "@kyverno-ts/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "../../../clock.js";
import { DEFAULT_EVENT_SETTINGS, startClusterEvents } from "../../../events/cluster-events.js";
import { silentLogger } from "../../../logger.js";
import {
  CRDS,
  controllerFor,
  eventually,
  namespace,
  pod,
  put,
  REPORT_CRDS,
  requireLabelPolicy,
  useCluster,
} from "../testing/harness.js";

describe("background scan Events (sandbox)", { timeout: 30_000 }, () => {
  let client: KubeClient;
  let kubeconfigPath = "";
  useCluster((started) => {
    client = started.client;
    kubeconfigPath = started.sandbox.kubeconfigPath;
  });

  const events = async (ns: string): Promise<KubeObject[]> => {
    const listed = await client.list({ apiVersion: "v1", kind: "Event", namespace: ns });
    if (!listed.ok) throw new Error(listed.message);
    return listed.value.items;
  };

  it("a Pod that existed before the policy: PolicyViolation from kyverno-scan on the Pod and on the policy", async () => {
    await put(client, namespace("scanned"));
    const existing = await put(client, pod("old", "scanned"));
    await put(client, requireLabelPolicy("require-team", "team"));
    const emitter = startClusterEvents({
      kube: { kubeconfigPath, qps: 0 },
      identity: "kyverno-reports-controller-0",
      settings: DEFAULT_EVENT_SETTINGS,
      clock: systemClock(),
      logger: silentLogger(),
    });
    const controller = controllerFor(client, { events: emitter });
    try {
      await controller.start();
      await eventually(
        async () => (await events("scanned")).some((e) => e.reason === "PolicyViolation"),
        15_000,
        "the Pod's Event",
      );
      const [onPod] = await events("scanned");
      expect(onPod).toMatchObject({
        type: "Warning",
        reason: "PolicyViolation",
        action: "Resource Passed",
        reportingComponent: "kyverno-scan",
        reportingInstance: "kyverno-scan-kyverno-reports-controller-0",
        involvedObject: { kind: "Pod", namespace: "scanned", name: "old", uid: existing.metadata?.uid },
        related: { apiVersion: "kyverno.io/v1", kind: "ClusterPolicy", name: "require-team" },
        message: expect.stringMatching(
          /^policy require-team\/check-team fail: validation error: The label `team` is required/,
        ),
      });
      await eventually(
        async () =>
          (await events("default")).some(
            (e) =>
              (e.involvedObject as { name?: string }).name === "require-team" &&
              e.reason === "PolicyViolation",
          ),
        15_000,
        "the policy's Event",
      );
      const onPolicy = (await events("default")).filter(
        (e) => (e.involvedObject as { name?: string }).name === "require-team",
      );
      expect(onPolicy.map((e) => e.message)).toEqual([
        expect.stringMatching(/^Pod scanned\/old: \[check-team\] fail; validation error: /),
      ]);
    } finally {
      await controller.stop();
      await emitter.stop();
    }
  });
});

describe("background scan Events of CEL policies (sandbox)", { timeout: 30_000 }, () => {
  let sandbox: Sandbox;
  let client: KubeClient;
  let kubeconfigPath = "";
  beforeAll(async () => {
    sandbox = await startSandbox({
      crds: [...REPORT_CRDS, `${CRDS}policies.kyverno.io/policies.kyverno.io_validatingpolicies.yaml`],
      admission: false,
    });
    kubeconfigPath = sandbox.kubeconfigPath;
    client = createKubeClient({ kubeconfigPath, qps: 0 });
  }, 30_000);
  afterAll(async () => {
    client?.close();
    await sandbox?.stop();
  });

  const events = async (ns: string): Promise<KubeObject[]> => {
    const listed = await client.list({ apiVersion: "v1", kind: "Event", namespace: ns });
    if (!listed.ok) throw new Error(listed.message);
    return listed.value.items;
  };

  it("a ValidatingPolicy's scan: PolicyViolation from kyverno-scan on the Pod and on the ValidatingPolicy", async () => {
    await put(client, namespace("cel-scanned"));
    await put(client, pod("legacy", "cel-scanned"));
    await put(client, {
      apiVersion: "policies.kyverno.io/v1",
      kind: "ValidatingPolicy",
      metadata: { name: "vpol-require-owner" },
      spec: {
        validationActions: ["Audit"],
        matchConstraints: {
          resourceRules: [
            { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["pods"] },
          ],
        },
        validations: [
          {
            expression: "has(object.metadata.labels) && 'owner' in object.metadata.labels",
            message: "the label owner is required",
          },
        ],
      },
    });
    const emitter = startClusterEvents({
      kube: { kubeconfigPath, qps: 0 },
      identity: "kyverno-reports-controller-0",
      settings: DEFAULT_EVENT_SETTINGS,
      clock: systemClock(),
      logger: silentLogger(),
    });
    const controller = controllerFor(client, { events: emitter });
    try {
      await controller.start();
      const onPolicy = (e: KubeObject) =>
        (e.involvedObject as { kind?: string; name?: string }).name === "vpol-require-owner";
      await eventually(
        async () =>
          (await events("cel-scanned")).some((e) => e.reason === "PolicyViolation") &&
          (await events("default")).some(onPolicy),
        15_000,
        "the ValidatingPolicy's Events",
      );
      const [onPod] = await events("cel-scanned");
      expect(onPod).toMatchObject({
        reason: "PolicyViolation",
        reportingComponent: "kyverno-scan",
        involvedObject: { kind: "Pod", namespace: "cel-scanned", name: "legacy" },
        related: {
          apiVersion: "policies.kyverno.io/v1",
          kind: "ValidatingPolicy",
          name: "vpol-require-owner",
        },
        message: expect.stringMatching(/^policy vpol-require-owner\/\S* fail: the label owner is required/),
      });
      const [policySide] = (await events("default")).filter(onPolicy);
      expect(policySide).toMatchObject({
        type: "Warning",
        reason: "PolicyViolation",
        involvedObject: { apiVersion: "policies.kyverno.io/v1", kind: "ValidatingPolicy" },
        message: expect.stringMatching(/^Pod cel-scanned\/legacy: \[.*\] fail; the label owner is required/),
      });
    } finally {
      await controller.stop();
      await emitter.stop();
    }
  });
});
