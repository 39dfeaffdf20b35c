/**
 * The status of a `policies.kyverno.io` policy, as upstream writes it: `status.conditionStatus` with
 * `ready`, a `message` (why not, when not ready) and the `WebhookConfigured` condition (`Succeeded`
 * once the webhook configurations computed from the policy have been written; `Failed` with the
 * compile issues, or what is not supported, otherwise).
 */
import type { JsonObject, KubeObject } from "@kyverno-ts/api";
import type { Readiness } from "./readiness.js";

/** Upstream's condition type and message of a configured CEL policy. */
export const WEBHOOK_CONFIGURED = { type: "WebhookConfigured", message: "Webhook configured." } as const;

/** The `status` to merge into a CEL policy (its `lastTransitionTime` kept while the condition holds). */
export function desiredCelStatus(input: { object: KubeObject; readiness: Readiness; now: Date }): JsonObject {
  const { object, readiness } = input;
  const previous = (object.status as { conditionStatus?: { conditions?: unknown } } | undefined)
    ?.conditionStatus?.conditions;
  const old = Array.isArray(previous)
    ? (previous as Array<Record<string, unknown>>).find((c) => c?.type === WEBHOOK_CONFIGURED.type)
    : undefined;
  const status = readiness.ready ? "True" : "False";
  const message = readiness.ready ? WEBHOOK_CONFIGURED.message : readiness.message;
  const unchanged = old?.status === status && old?.reason === readiness.reason && old?.message === message;
  const condition: JsonObject = {
    type: WEBHOOK_CONFIGURED.type,
    status,
    reason: readiness.reason,
    message,
    lastTransitionTime:
      unchanged && typeof old?.lastTransitionTime === "string"
        ? old.lastTransitionTime
        : input.now.toISOString(),
  };
  const generation = object.metadata?.generation;
  if (typeof generation === "number") condition.observedGeneration = generation;
  return {
    conditionStatus: {
      ready: readiness.ready,
      message: readiness.ready ? "" : readiness.message,
      conditions: [condition],
    },
  };
}

/** What decides whether a write is needed (the transition time aside). */
export function comparableCelStatus(status: unknown): string {
  const s = ((status ?? {}) as { conditionStatus?: Record<string, unknown> }).conditionStatus ?? {};
  const conditions = Array.isArray(s.conditions)
    ? (s.conditions as Array<Record<string, unknown>>).map(({ lastTransitionTime: _, ...rest }) => rest)
    : [];
  return JSON.stringify([s.ready ?? null, s.message ?? null, conditions]);
}
