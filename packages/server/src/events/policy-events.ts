/**
 * Kubernetes Events as upstream Kyverno emits them from policy responses (`pkg/event`,
 * `webhooks/utils/event.go`, the reports controller's `GenerateEvents`), for classic and CEL policies
 * alike: a failing rule gives a `PolicyViolation` (an `error` rule a `PolicyError`) on the policy, with
 * the resource as related object, and on the resource, with the policy as related object; a request
 * the webhook blocks gives the policy's Event only ("(blocked)", the resource does not exist).
 * `PolicyApplied` (no rule failed; a `warn` result is not a failure, as upstream's `IsSuccessful`) and
 * `PolicySkipped` (a rule a PolicyException exempted, on the policy and on the exception) are omitted
 * by default (`--omitEvents`). A classic policy whose rules only mutate says the resource "is
 * successfully mutated" (action `Resource Mutated`); every other applied policy says `pass`. The
 * message formats live here, in one place.
 */
import type { PolicyResponse, RuleResponse } from "@kyverno-ts/engine";
import type { EventObjectRef, EventRecord } from "@kyverno-ts/kube";

/** The reasons upstream's events carry, which `--omitEvents` names. */
export const EVENT_REASONS = ["PolicyViolation", "PolicyApplied", "PolicyError", "PolicySkipped"] as const;
export type EventReason = (typeof EVENT_REASONS)[number];

/** Upstream's `--omitEvents` default (chart `features.omitEvents.eventTypes`). */
export const DEFAULT_OMIT_EVENTS: readonly EventReason[] = ["PolicyApplied", "PolicySkipped"];

/** `reportingController` of each emitting controller (upstream's event sources). */
export const EventSources = {
  admission: "kyverno-admission",
  /** Background scans (upstream's policy controller source). */
  scan: "kyverno-scan",
  /** The background controller's generate rules and GeneratingPolicies. */
  generate: "kyverno-generate",
  /** The background controller's mutate-existing rules. */
  mutateExisting: "kyverno-mutate",
  cleanup: "kyverno-cleanup",
} as const;

/** Upstream's event actions. */
export const EventActions = {
  passed: "Resource Passed",
  blocked: "Resource Blocked",
  generated: "Resource Generated",
  mutated: "Resource Mutated",
  cleanedUp: "Resource Cleaned Up",
  none: "None",
} as const;

/** The API version PolicyExceptions are referred to with. */
const EXCEPTION_API_VERSION = "kyverno.io/v2";

/**
 * Parses `--omitEvents` (comma-separated reasons; empty: emit everything). An unknown reason is an
 * error naming the accepted ones.
 */
export function parseOmitEvents(
  value: string,
): { ok: true; reasons: EventReason[] } | { ok: false; message: string } {
  const reasons: EventReason[] = [];
  for (const part of value.split(",")) {
    const reason = part.trim();
    if (reason === "") continue;
    if (!(EVENT_REASONS as readonly string[]).includes(reason))
      return {
        ok: false,
        message: `--omitEvents: unknown event type "${reason}" (accepted: ${EVENT_REASONS.join(", ")})`,
      };
    if (!reasons.includes(reason as EventReason)) reasons.push(reason as EventReason);
  }
  return { ok: true, reasons };
}

/** `Kind namespace/name`, or `Kind name` for cluster-scoped resources (upstream's message prefix). */
function resourceLabel(resource: PolicyResponse["resource"]): string {
  return resource.namespace
    ? `${resource.kind} ${resource.namespace}/${resource.name}`
    : `${resource.kind} ${resource.name}`;
}

/** `Kind/namespace/name` (upstream's `resourceKey`). */
function resourceKey(resource: PolicyResponse["resource"]): string {
  return resource.namespace
    ? `${resource.kind}/${resource.namespace}/${resource.name}`
    : `${resource.kind}/${resource.name}`;
}

/** Upstream's message formats. */
export const EventMessages = {
  /** On the policy: `Pod team-a/web: [check-team] fail (blocked); <rule message>`. */
  policyRule(response: PolicyResponse, rule: RuleResponse, blocked: boolean): string {
    const message = rule.message === "" ? "" : `; ${rule.message}`;
    return `${resourceLabel(response.resource)}: [${rule.name}] ${rule.status}${blocked ? " (blocked)" : ""}${message}`;
  },
  /** On the resource: `policy require-labels/check-team fail: <rule message>`. */
  resourceRule(response: PolicyResponse, rule: RuleResponse): string {
    return `policy ${response.policy.name}/${rule.name} ${rule.status}: ${rule.message}`;
  },
  /** On the policy when no rule failed: `Pod team-a/web: pass`. */
  applied(response: PolicyResponse): string {
    return `${resourceLabel(response.resource)}: pass`;
  },
  /** On a classic policy whose rules only mutate: `Pod team-a/web is successfully mutated`. */
  mutated(response: PolicyResponse): string {
    return `${resourceLabel(response.resource)} is successfully mutated`;
  },
  /** On the policy when an exception exempted a rule. */
  skippedPolicy(
    response: PolicyResponse,
    rule: RuleResponse,
    exception: { namespace: string; name: string },
  ): string {
    return `resource ${resourceKey(response.resource)} was skipped from rule ${rule.name} due to policy exception ${exception.namespace}/${exception.name}`;
  },
  /** On the exception. */
  skippedException(response: PolicyResponse, rule: RuleResponse): string {
    const policy = response.policy.namespace
      ? `${response.policy.namespace}/${response.policy.name}`
      : response.policy.name;
    return `resource ${resourceKey(response.resource)} was skipped from policy rule ${policy}/${rule.name}`;
  },
};

/** Resolves a response's policy to the object Events refer to (apiVersion and uid from the cache). */
export type PolicyRefOf = (policy: PolicyResponse["policy"]) => EventObjectRef;

/** Options of `createPolicyEvents`. */
export interface PolicyEventsOptions {
  /** Where Events go (an `EventRecorder`); must not block. */
  recorder: { record(event: EventRecord): void };
  /** Reasons not emitted (`--omitEvents`; default upstream's `PolicyApplied,PolicySkipped`). */
  omit?: Iterable<EventReason>;
  policyRef: PolicyRefOf;
}

/** Turns policy responses into Events; see the module comment for which. */
export interface PolicyEvents {
  /**
   * The Events of one admission request's validate responses (classic policies, ValidatingPolicies).
   * `blocked`: the request was denied, so only the policies' Events of the failing Enforce (Deny)
   * rules are emitted.
   */
  admission(responses: readonly PolicyResponse[], blocked: boolean): void;
  /**
   * The Events of one admission request's mutate responses (classic policies, MutatingPolicies), as
   * upstream's mutation webhook: failures and errors as for validate, `PolicyApplied` when a rule
   * mutated. `blocked`: a failing rule denied the request.
   */
  mutation(responses: readonly PolicyResponse[], blocked: boolean): void;
  /** The Events of one policy's background scan of one resource. */
  scan(response: PolicyResponse): void;
}

const failing = (rule: RuleResponse): boolean => rule.status === "fail" || rule.status === "error";

/** Classic policy kinds (upstream's `AsKyvernoPolicy`): only they say "is successfully mutated". */
const CLASSIC_KINDS = new Set(["ClusterPolicy", "Policy"]);

/** What the emitting functions share: the recorder, the policy references, the reasons not omitted. */
interface Emitter {
  recorder: PolicyEventsOptions["recorder"];
  policyRef: PolicyRefOf;
  emits(reason: EventReason): boolean;
}

/** The resource of a response as an Event's object reference. */
function resourceRef(response: PolicyResponse): EventObjectRef {
  const r = response.resource;
  return {
    apiVersion: r.apiVersion,
    kind: r.kind,
    name: r.name,
    ...(r.namespace ? { namespace: r.namespace } : {}),
    ...(r.uid ? { uid: r.uid } : {}),
  };
}

/** The two objects of a response's Events, resolved once for all its rules. */
interface ResponseRefs {
  policy: EventObjectRef;
  resource: EventObjectRef;
}

/** A failing rule's Events: on the policy, and (unless the request was blocked) on the resource. */
function ruleEvents(
  e: Emitter,
  source: string,
  response: PolicyResponse,
  rule: RuleResponse,
  blocked: boolean,
  refs?: ResponseRefs,
): ResponseRefs | undefined {
  const reason: EventReason = rule.status === "error" ? "PolicyError" : "PolicyViolation";
  if (!e.emits(reason)) return refs;
  const { policy, resource } = refs ?? {
    policy: e.policyRef(response.policy),
    resource: resourceRef(response),
  };
  e.recorder.record({
    reportingController: source,
    regarding: policy,
    related: resource,
    type: "Warning",
    reason,
    action: blocked ? EventActions.blocked : EventActions.passed,
    note: EventMessages.policyRule(response, rule, blocked),
  });
  if (!blocked)
    e.recorder.record({
      reportingController: source,
      regarding: resource,
      related: policy,
      type: "Warning",
      reason,
      action: EventActions.passed,
      note: EventMessages.resourceRule(response, rule),
    });
  return { policy, resource };
}

/** The Events of rules a PolicyException exempted: on the policy and on the exception. */
function skippedEvents(e: Emitter, source: string, response: PolicyResponse): void {
  if (!e.emits("PolicySkipped")) return;
  for (const rule of response.rules) {
    if (rule.status !== "skip" || rule.exception === undefined) continue;
    const { exception } = rule;
    e.recorder.record({
      reportingController: source,
      regarding: e.policyRef(response.policy),
      related: resourceRef(response),
      type: "Normal",
      reason: "PolicySkipped",
      action: EventActions.passed,
      note: EventMessages.skippedPolicy(response, rule, exception),
    });
    e.recorder.record({
      reportingController: source,
      regarding: {
        apiVersion: EXCEPTION_API_VERSION,
        kind: "PolicyException",
        name: exception.name,
        namespace: exception.namespace,
      },
      related: resourceRef(response),
      type: "Normal",
      reason: "PolicySkipped",
      action: EventActions.passed,
      note: EventMessages.skippedException(response, rule),
    });
  }
}

/** `PolicyApplied` on the policy (a classic policy that only mutates says "successfully mutated"). */
function appliedEvent(e: Emitter, source: string, response: PolicyResponse): void {
  const mutateOnly =
    CLASSIC_KINDS.has(response.policy.kind) && response.rules.every((r) => r.type === "Mutation");
  e.recorder.record({
    reportingController: source,
    regarding: e.policyRef(response.policy),
    related: resourceRef(response),
    type: "Normal",
    reason: "PolicyApplied",
    action: mutateOnly ? EventActions.mutated : EventActions.passed,
    note: mutateOnly ? EventMessages.mutated(response) : EventMessages.applied(response),
  });
}

/** The Events of one response that did not block: failures, exemptions, or applied. */
function outcomeEvents(e: Emitter, source: string, response: PolicyResponse): void {
  let failed = false;
  let refs: ResponseRefs | undefined;
  for (const rule of response.rules)
    if (failing(rule)) {
      failed = true;
      refs = ruleEvents(e, source, response, rule, false, refs);
    }
  skippedEvents(e, source, response);
  if (failed || !e.emits("PolicyApplied")) return;
  // A warn result is not a failure (upstream's IsSuccessful); rules all skipped apply nothing.
  if (response.rules.some((r) => r.status === "pass" || r.status === "warn"))
    appliedEvent(e, source, response);
}

/** Creates the emitter. Builds no Event of an omitted reason. */
export function createPolicyEvents(options: PolicyEventsOptions): PolicyEvents {
  const omit = new Set<string>(options.omit ?? DEFAULT_OMIT_EVENTS);
  const e: Emitter = {
    recorder: options.recorder,
    policyRef: options.policyRef,
    emits: (reason) => !omit.has(reason),
  };
  const admission = EventSources.admission;
  return {
    admission(responses, blocked) {
      if (!blocked) for (const response of responses) outcomeEvents(e, admission, response);
      else
        for (const response of responses)
          for (const rule of response.rules)
            if (failing(rule) && rule.failureAction === "Enforce")
              ruleEvents(e, admission, response, rule, true);
    },
    mutation(responses, blocked) {
      if (!blocked) {
        for (const response of responses) outcomeEvents(e, admission, response);
        return;
      }
      // A failing mutate rule of a Fail policy denied the request: the policy's Events, blocked.
      for (const response of responses)
        for (const rule of response.rules) if (failing(rule)) ruleEvents(e, admission, response, rule, true);
    },
    scan: (response) => outcomeEvents(e, EventSources.scan, response),
  };
}

/** Finds the policy object of a response (in a policy cache). */
export type PolicyLookup = (
  policy: PolicyResponse["policy"],
) => { apiVersion?: string; metadata?: object } | undefined;

/** Policies as Events refer to them: apiVersion and uid from the cached policy when it is known. */
export function policyRefFrom(lookup: PolicyLookup): PolicyRefOf {
  return (policy) => {
    const found = lookup(policy);
    const uid = (found?.metadata as { uid?: unknown } | undefined)?.uid;
    return {
      // Unknown to the cache (deleted meanwhile): the kind's group at its served version.
      apiVersion:
        found?.apiVersion ?? (CLASSIC_KINDS.has(policy.kind) ? "kyverno.io/v1" : "policies.kyverno.io/v1"),
      kind: policy.kind,
      name: policy.name,
      ...(policy.namespace ? { namespace: policy.namespace } : {}),
      ...(typeof uid === "string" && uid !== "" ? { uid } : {}),
    };
  };
}
