/**
 * The background controller's Events, as upstream's `NewBackgroundSuccessEvent` and
 * `NewBackgroundFailedEvent` (`pkg/event/events.go`): an UpdateRequest processed without error gives
 * a `PolicyApplied` (Normal) on the policy per resource it generated or mutated (the resource
 * related; `resource generated` / `resource mutated`, action `Resource Generated` / `Resource
 * Mutated`), only when the `kyverno` ConfigMap's `generateSuccessEvents` is true and `PolicyApplied`
 * is not omitted; a failure gives a `PolicyError` (Warning) on the policy, the trigger related,
 * `policy <name>/<rule> error: <message>`, action `None`. Generate rules and GeneratingPolicies report
 * as `kyverno-generate`, mutate-existing rules and MutatingPolicies as `kyverno-mutate`.
 */
import type { KubeObject } from "@kyverno-ts/api";
import type { EventObjectRef, EventRecord } from "@kyverno-ts/kube";
import { DEFAULT_OMIT_EVENTS, EventActions, type EventReason, EventSources } from "./policy-events.js";

/** The UpdateRequest fields the Events need (`spec` of an UpdateRequest). */
export interface ProcessedRequest {
  /** `generate`, `mutate`, `cel-generate` or `cel-mutate`. */
  requestType: string;
  /** The policy's cache key: `name`, or `namespace/name` of a namespaced policy. */
  policy: string;
  /** The (first) rule. */
  rule: string;
  /** The trigger. */
  resource: { apiVersion: string; kind: string; namespace: string; name: string; uid: string };
}

/** What processing an UpdateRequest came to. */
export type ProcessedOutcome =
  | { state: "Completed"; generated: readonly KubeObject[] }
  | { state: "Skip" }
  | { state: "Failed"; message: string };

/** Options of `createBackgroundEvents`. */
export interface BackgroundEventsOptions {
  recorder: { record(event: EventRecord): void };
  /** `--omitEvents` (default upstream's `PolicyApplied,PolicySkipped`). */
  omit?: Iterable<EventReason>;
  /** The `kyverno` ConfigMap's `generateSuccessEvents`, read at each Event (default false). */
  generateSuccessEvents: () => boolean;
  /** The policy object (apiVersion and uid) of an UpdateRequest, when it is known. */
  policyObject?: (request: ProcessedRequest) => { apiVersion?: string; metadata?: object } | undefined;
}

/** Records the background controller's Events. */
export interface BackgroundEvents {
  /** After an UpdateRequest was processed. */
  processed(request: ProcessedRequest, outcome: ProcessedOutcome): void;
}

/** The policy kind of an UpdateRequest: its request type and whether its key is namespaced. */
export function policyKindOf(request: Pick<ProcessedRequest, "requestType" | "policy">): string {
  const namespaced = request.policy.includes("/");
  if (request.requestType === "cel-generate")
    return namespaced ? "NamespacedGeneratingPolicy" : "GeneratingPolicy";
  if (request.requestType === "cel-mutate") return namespaced ? "NamespacedMutatingPolicy" : "MutatingPolicy";
  return namespaced ? "Policy" : "ClusterPolicy";
}

const refOf = (o: {
  apiVersion?: unknown;
  kind?: unknown;
  metadata?: { name?: unknown; namespace?: unknown; uid?: unknown };
}): EventObjectRef => ({
  apiVersion: typeof o.apiVersion === "string" ? o.apiVersion : "",
  kind: typeof o.kind === "string" ? o.kind : "",
  name: typeof o.metadata?.name === "string" ? o.metadata.name : "",
  ...(typeof o.metadata?.namespace === "string" && o.metadata.namespace !== ""
    ? { namespace: o.metadata.namespace }
    : {}),
  ...(typeof o.metadata?.uid === "string" && o.metadata.uid !== "" ? { uid: o.metadata.uid } : {}),
});

/** Creates the recorder of the background controller's Events. */
export function createBackgroundEvents(options: BackgroundEventsOptions): BackgroundEvents {
  const omit = new Set<string>(options.omit ?? DEFAULT_OMIT_EVENTS);
  const { recorder } = options;

  const policyRef = (request: ProcessedRequest): EventObjectRef => {
    const slash = request.policy.indexOf("/");
    const name = slash < 0 ? request.policy : request.policy.slice(slash + 1);
    const kind = policyKindOf(request);
    const found = options.policyObject?.(request);
    const uid = (found?.metadata as { uid?: unknown } | undefined)?.uid;
    return {
      apiVersion:
        found?.apiVersion ??
        (request.requestType.startsWith("cel-") ? "policies.kyverno.io/v1" : "kyverno.io/v1"),
      kind,
      name,
      ...(slash < 0 ? {} : { namespace: request.policy.slice(0, slash) }),
      ...(typeof uid === "string" && uid !== "" ? { uid } : {}),
    };
  };

  return {
    processed(request, outcome) {
      const mutate = request.requestType === "mutate" || request.requestType === "cel-mutate";
      const source = mutate ? EventSources.mutateExisting : EventSources.generate;
      if (outcome.state === "Failed") {
        if (omit.has("PolicyError")) return;
        const t = request.resource;
        const regarding = policyRef(request);
        recorder.record({
          reportingController: source,
          regarding,
          related: refOf({
            apiVersion: t.apiVersion,
            kind: t.kind,
            metadata: { name: t.name, namespace: t.namespace, uid: t.uid },
          }),
          type: "Warning",
          reason: "PolicyError",
          action: EventActions.none,
          note: `policy ${regarding.name}/${request.rule} error: ${outcome.message}`,
        });
        return;
      }
      if (outcome.state !== "Completed" || omit.has("PolicyApplied") || !options.generateSuccessEvents())
        return;
      const regarding = policyRef(request);
      for (const resource of outcome.generated)
        recorder.record({
          reportingController: source,
          regarding,
          related: refOf(resource),
          type: "Normal",
          reason: "PolicyApplied",
          action: mutate ? EventActions.mutated : EventActions.generated,
          note: mutate ? "resource mutated" : "resource generated",
        });
    },
  };
}
