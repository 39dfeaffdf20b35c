/**
 * The Events of cleanup policies, as upstream's `NewCleanupPolicyEvent`: regarding the policy,
 * related to the resource, reason `PolicyApplied` after a deletion and `PolicyError` (Warning) when
 * it failed, action `ResourceCleanedUp`, from `kyverno-cleanup`. Written by kube's event recorder
 * (non-blocking, aggregated, rate limited).
 */
import type { KubeObject } from "@kyverno-ts/api";
import type { EventObjectRef, EventRecorder } from "@kyverno-ts/kube";

/** The reporting controller of the events. */
export const CLEANUP_EVENT_SOURCE = "kyverno-cleanup";

/** Records the controller's events. */
export interface CleanupEvents {
  /** A cleanup policy deleted `resource` (`error` undefined) or failed to. */
  cleanedUp(policy: KubeObject, resource: KubeObject, error: string | undefined): void;
}

const refOf = (o: KubeObject): EventObjectRef => ({
  apiVersion: o.apiVersion ?? "",
  kind: o.kind ?? "",
  name: o.metadata?.name ?? "",
  ...(o.metadata?.namespace ? { namespace: o.metadata.namespace } : {}),
  ...(typeof o.metadata?.uid === "string" ? { uid: o.metadata.uid } : {}),
});

/** Upstream's message of a cleanup event. */
export function cleanupEventMessage(resource: KubeObject, error: string | undefined): string {
  const id = `${resource.kind}/${resource.metadata?.namespace ?? ""}/${resource.metadata?.name ?? ""}`;
  return error === undefined
    ? `successfully cleaned up the target resource ${id}`
    : `failed to clean up the target resource ${id}: ${error}`;
}

/** The cleanup events over a recorder. */
export function createCleanupEvents(recorder: Pick<EventRecorder, "record">): CleanupEvents {
  return {
    cleanedUp(policy, resource, error) {
      recorder.record({
        reportingController: CLEANUP_EVENT_SOURCE,
        regarding: refOf(policy),
        related: refOf(resource),
        type: error === undefined ? "Normal" : "Warning",
        reason: error === undefined ? "PolicyApplied" : "PolicyError",
        action: "ResourceCleanedUp",
        note: cleanupEventMessage(resource, error),
      });
    },
  };
}
