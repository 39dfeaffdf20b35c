import type { KubeObject } from "@kyverno-ts/api";
import type { EventRecord } from "@kyverno-ts/kube";
import { describe, expect, it } from "vitest";
import { createCleanupEvents } from "./events.js";

const pod: KubeObject = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "example", namespace: "default", uid: "pod-uid" },
};
const cleanupPolicy: KubeObject = {
  apiVersion: "kyverno.io/v2",
  kind: "ClusterCleanupPolicy",
  metadata: { name: "clean-pods", uid: "ccp-uid" },
};
const deletingPolicy: KubeObject = {
  apiVersion: "policies.kyverno.io/v1",
  kind: "DeletingPolicy",
  metadata: { name: "deleting-pod", uid: "dpol-uid" },
};

describe("cleanup events", () => {
  it("a deletion: PolicyApplied on the policy, the resource related, action Resource Cleaned Up, from kyverno-cleanup", () => {
    const events: EventRecord[] = [];
    const emitter = createCleanupEvents({ record: (e) => events.push(e) });
    emitter.cleanedUp(cleanupPolicy, pod, undefined);
    emitter.cleanedUp(deletingPolicy, pod, undefined);
    expect(events).toEqual([
      {
        reportingController: "kyverno-cleanup",
        regarding: {
          apiVersion: "kyverno.io/v2",
          kind: "ClusterCleanupPolicy",
          name: "clean-pods",
          uid: "ccp-uid",
        },
        related: { apiVersion: "v1", kind: "Pod", name: "example", namespace: "default", uid: "pod-uid" },
        type: "Normal",
        reason: "PolicyApplied",
        action: "Resource Cleaned Up",
        note: "successfully cleaned up the target resource Pod/default/example",
      },
      {
        reportingController: "kyverno-cleanup",
        regarding: {
          apiVersion: "policies.kyverno.io/v1",
          kind: "DeletingPolicy",
          name: "deleting-pod",
          uid: "dpol-uid",
        },
        related: { apiVersion: "v1", kind: "Pod", name: "example", namespace: "default", uid: "pod-uid" },
        type: "Normal",
        reason: "PolicyApplied",
        action: "Resource Cleaned Up",
        note: "successfully deleted the target resource Pod/default/example",
      },
    ]);
  });

  it("a failed deletion: PolicyError (Warning), action None, with the error", () => {
    const events: EventRecord[] = [];
    const emitter = createCleanupEvents({ record: (e) => events.push(e) });
    emitter.cleanedUp(cleanupPolicy, pod, "pods is forbidden");
    emitter.cleanedUp(deletingPolicy, pod, "pods is forbidden");
    expect(events.map((e) => [e.type, e.reason, e.action, e.note])).toEqual([
      [
        "Warning",
        "PolicyError",
        "None",
        "failed to clean up the target resource Pod/default/example: pods is forbidden",
      ],
      [
        "Warning",
        "PolicyError",
        "None",
        "failed to delete the target resource Pod/default/example: pods is forbidden",
      ],
    ]);
  });
});
