/**
 * The Events of cleanup policies, as upstream's `NewCleanupPolicyEvent` and `NewDeletingPolicyEvent`:
 * regarding the policy, related to the resource, from `kyverno-cleanup`; after a deletion reason
 * `PolicyApplied` (Normal), action `Resource Cleaned Up`, "successfully cleaned up the target
 * resource Kind/namespace/name" ("successfully deleted …" for a DeletingPolicy); when it failed
 * `PolicyError` (Warning), action `None`, "failed to clean up …: <error>" ("failed to delete …").
 * Written by kube's event recorder (non-blocking, aggregated, rate limited).
 */
import type { KubeObject } from "@kyverno-ts/api";
import type { EventObjectRef, EventRecorder } from "@kyverno-ts/kube";
import { EventActions, EventSources } from "../../events/policy-events.js";

/** The reporting controller of the events. */
export const CLEANUP_EVENT_SOURCE = EventSources.cleanup;

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

/** Upstream's message of a cleanup event (`deleting`: the policy is a DeletingPolicy). */
export function cleanupEventMessage(
  resource: KubeObject,
  error: string | undefined,
  deleting = false,
): string {
  const id = `${resource.kind}/${resource.metadata?.namespace ?? ""}/${resource.metadata?.name ?? ""}`;
  if (deleting)
    return error === undefined
      ? `successfully deleted the target resource ${id}`
      : `failed to delete the target resource ${id}: ${error}`;
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
        action: error === undefined ? EventActions.cleanedUp : EventActions.none,
        note: cleanupEventMessage(resource, error, policy.kind?.endsWith("DeletingPolicy") === true),
      });
    },
  };
}
