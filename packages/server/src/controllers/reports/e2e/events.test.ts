/** End to end against the sandbox: a background scan's violation is a `kyverno-scan` Event on the resource and on the policy. */
import type { KubeObject } from "@kyverno-ts/api";
import type { KubeClient } from "@kyverno-ts/kube";
import { describe, expect, it } from "vitest";
import { systemClock } from "../../../clock.js";
import { DEFAULT_EVENT_SETTINGS, startClusterEvents } from "../../../events/cluster-events.js";
import { silentLogger } from "../../../logger.js";
import {
  controllerFor,
  eventually,
  namespace,
  pod,
  put,
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
