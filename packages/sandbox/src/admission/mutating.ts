/**
 * The mutating webhook dispatcher (upstream mutating/dispatcher.go plus the admission chain's
 * reinvocation round): webhooks run one after another, each seeing the previous patch result.
 */
import type { JsonValue } from "@kyverno-ts/api";
import { applyJsonPatch } from "@kyverno-ts/k8s";
import { callWebhook } from "./call.js";
import type { WebhookSpec } from "./config.js";
import { addAnnotation, addWarning, type DispatchContext, requestDone } from "./context.js";
import {
  callingReason,
  callingWebhookMessage,
  type HookError,
  internalError,
  logLine,
  patchWithoutObject,
  requestTimeout,
  transport,
  webhookDenied,
} from "./errors.js";
import { shouldCallHook } from "./should-call.js";
import type { AdmissionAttributes, StatusError } from "./types.js";

/** The mutated object, or the status that rejects the request. */
export type MutationResult = { ok: true; object: JsonValue | null } | { ok: false; status: StatusError };

type HookOutcome = { ok: true; object: JsonValue | null; changed: boolean } | { ok: false; error: HookError };

function jsonEqual(a: JsonValue | null | undefined, b: JsonValue | null | undefined): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => jsonEqual(v, b[i]))
    );
  }
  const keys = Object.keys(a);
  return (
    keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k], b[k]))
  );
}

function statusError(status: StatusError): HookOutcome {
  return { ok: false, error: { type: "status", status } };
}

/** Applies a webhook's JSON patch as upstream does (evanphx/json-patch: no implicit parents, no lenient remove). */
function applyPatch(
  hook: WebhookSpec,
  object: JsonValue | null,
  patch: string,
  patchType: string,
): HookOutcome {
  let ops: unknown;
  try {
    ops = JSON.parse(patch);
  } catch (err) {
    return statusError(internalError(err instanceof Error ? err.message : String(err)));
  }
  if (!Array.isArray(ops))
    return statusError(internalError("json: cannot unmarshal object into Go value of type jsonpatch.Patch"));
  if (ops.length === 0) return { ok: true, object, changed: false };
  if (object === null) return statusError(patchWithoutObject(hook.name));
  if (patchType !== "JSONPatch") {
    return {
      ok: false,
      error: { type: "calling", webhook: hook.name, reason: callingReason.unsupportedPatchType(patchType) },
    };
  }
  const applied = applyJsonPatch(object, ops as JsonValue[]);
  if (!applied.ok) return statusError(internalError(applied.error));
  const value = applied.value;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return statusError(
      internalError(
        `json: cannot unmarshal ${Array.isArray(value) ? "array" : typeof value} into Go value of type ${kindOf(object)}`,
      ),
    );
  }
  return { ok: true, object: value, changed: !jsonEqual(object, value) };
}

function kindOf(object: JsonValue): string {
  const kind =
    typeof object === "object" && object !== null && !Array.isArray(object) ? object.kind : undefined;
  return typeof kind === "string" ? kind : "object";
}

/** callAttrMutatingHook: call, record warnings and audit annotations, then deny or apply the patch. */
async function callMutatingHook(
  hook: WebhookSpec,
  attrs: AdmissionAttributes,
  ctx: DispatchContext,
  round: number,
  index: number,
): Promise<HookOutcome> {
  const called = await callWebhook(hook, attrs, true, ctx);
  const outcome = ((): HookOutcome => {
    if (!called.ok) return called;
    const r = called.response;
    for (const [k, v] of Object.entries(r.auditAnnotations)) addAnnotation(ctx, `${hook.name}/${k}`, v);
    for (const w of r.warnings) addWarning(ctx, w);
    if (!r.allowed)
      return { ok: false, error: { type: "rejection", status: webhookDenied(hook.name, r.status) } };
    if (r.patch === "") return { ok: true, object: attrs.object, changed: false };
    return applyPatch(hook, attrs.object, r.patch, r.patchType);
  })();
  const mutated = outcome.ok && outcome.changed;
  const annotation = { configuration: hook.configurationName, webhook: hook.name, mutated };
  addAnnotation(
    ctx,
    `mutation.webhook.admission.k8s.io/round_${round}_index_${index}`,
    JSON.stringify(annotation),
  );
  return outcome;
}

interface ReinvocationState {
  /** IfNeeded webhooks called since the last change. */
  previouslyInvoked: Set<string>;
  /** Webhooks to call again in the reinvocation round. */
  reinvoke: Set<string>;
  shouldReinvoke: boolean;
}

/** One pass over the mutating webhooks; round 1 only calls webhooks marked for reinvocation. */
async function dispatchRound(
  hooks: readonly WebhookSpec[],
  attrs: AdmissionAttributes,
  ctx: DispatchContext,
  round: number,
  state: ReinvocationState,
): Promise<MutationResult> {
  let object = attrs.object;
  for (const [index, hook] of hooks.entries()) {
    const current = { ...attrs, object };
    const decision = shouldCallHook(hook, current, ctx);
    if (decision.error !== undefined) return { ok: false, status: decision.error };
    if (!decision.call) continue;
    // A webhook skipped in round 0 is not called for the first time during reinvocation.
    if (round === 1 && !state.reinvoke.has(hook.uid)) continue;
    const outcome = await callMutatingHook(hook, current, ctx, round, index);
    if (outcome.ok && outcome.changed) {
      for (const uid of state.previouslyInvoked) state.reinvoke.add(uid);
      state.previouslyInvoked.clear();
      state.shouldReinvoke = true;
    }
    if (hook.reinvocationPolicy === "IfNeeded") state.previouslyInvoked.add(hook.uid);
    if (outcome.ok) {
      object = outcome.object;
      continue;
    }
    const error = outcome.error;
    if (error.type !== "calling") return { ok: false, status: error.status };
    if (hook.failurePolicy === "Ignore") {
      ctx.logger.warn(
        { webhook: hook.name },
        logLine.failingOpen(hook.name, callingWebhookMessage(hook.name, error.reason)),
      );
      if (!error.reason.endsWith(transport.canceled)) {
        addAnnotation(
          ctx,
          `failed-open.mutation.webhook.admission.k8s.io/round_${round}_index_${index}`,
          hook.name,
        );
      }
      if (requestDone(ctx)) return { ok: false, status: requestTimeout() };
      continue;
    }
    const message = callingWebhookMessage(hook.name, error.reason);
    ctx.logger.warn({ webhook: hook.name }, logLine.failingClosed(hook.name, message));
    return { ok: false, status: internalError(message) };
  }
  return { ok: true, object };
}

/**
 * Runs the mutating webhooks in order, then — when some webhook changed the object — the
 * reinvocation round: every `reinvocationPolicy: IfNeeded` webhook called before a change is called
 * once more (webhooks are re-read and re-matched against the mutated object).
 */
export async function runMutating(
  attrs: AdmissionAttributes,
  ctx: DispatchContext,
  readHooks: () => WebhookSpec[],
): Promise<MutationResult> {
  const state: ReinvocationState = {
    previouslyInvoked: new Set(),
    reinvoke: new Set(),
    shouldReinvoke: false,
  };
  const first = await dispatchRound(readHooks(), attrs, ctx, 0, state);
  if (!first.ok || !state.shouldReinvoke) return first;
  return dispatchRound(readHooks(), { ...attrs, object: first.object }, ctx, 1, state);
}
