/**
 * Calling one webhook: dry-run and version checks, the HTTPS round trip bounded by the webhook's
 * timeout and the request's deadline, and response verification (upstream callHook /
 * callAttrMutatingHook up to the point where the two dispatchers differ).
 */
import type { WebhookSpec } from "./config.js";
import type { DispatchContext } from "./context.js";
import { callingReason, dryRunUnsupported, type HookError, transport } from "./errors.js";
import { type PostResult, postJson, resolveTarget } from "./http-client.js";
import {
  buildAdmissionReview,
  decodeHttpAnswer,
  pickReviewVersion,
  type VerifiedResponse,
  verifyResponse,
} from "./review.js";
import type { AdmissionAttributes } from "./types.js";

/** A verified response, or why the webhook did not give one. */
export type CallOutcome = { ok: true; response: VerifiedResponse } | { ok: false; error: HookError };

function calling(hook: WebhookSpec, reason: string): CallOutcome {
  return { ok: false, error: { type: "calling", webhook: hook.name, reason } };
}

/**
 * POSTs an AdmissionReview for `attrs` (with the current object) to `hook` and verifies the answer. A dry-run request never
 * reaches a webhook whose sideEffects are not None/NoneOnDryRun (a 400 whatever the failurePolicy).
 */
export async function callWebhook(
  hook: WebhookSpec,
  attrs: AdmissionAttributes,
  mutating: boolean,
  ctx: DispatchContext,
): Promise<CallOutcome> {
  if (attrs.dryRun) {
    if (hook.sideEffects === undefined) return calling(hook, callingReason.sideEffectsNil);
    if (hook.sideEffects !== "None" && hook.sideEffects !== "NoneOnDryRun") {
      return { ok: false, error: { type: "status", status: dryRunUnsupported(hook.name) } };
    }
  }
  const version = pickReviewVersion(hook.admissionReviewVersions);
  if (version === undefined) return calling(hook, callingReason.noReviewVersion);
  const resolved = resolveTarget(hook.clientConfig, ctx.resolveService);
  if (!resolved.ok) return calling(hook, resolved.reason);
  const { target } = resolved;
  const timeoutMs = Math.min(hook.timeoutSeconds * 1000, ctx.deadline - ctx.now());
  if (timeoutMs <= 0) {
    return calling(hook, callingReason.failedToCall(transport.post(target.displayUrl, transport.deadline)));
  }
  const uid = ctx.randomUUID();
  const review = buildAdmissionReview(version, uid, attrs);
  let answer: PostResult;
  try {
    answer = await postJson(target, JSON.stringify(review), timeoutMs, ctx.signal);
  } catch (err) {
    // Node refuses some options synchronously (e.g. a malformed host); upstream fails to build the client.
    return calling(hook, callingReason.noClient(err instanceof Error ? err.message : String(err)));
  }
  if (!answer.ok) return calling(hook, callingReason.failedToCall(answer.error));
  const decoded = decodeHttpAnswer(answer);
  if (!decoded.ok) return calling(hook, callingReason.failedToCall(decoded.error));
  const verified = verifyResponse(decoded.review, version, uid, mutating);
  if (!verified.ok) return calling(hook, callingReason.invalidResponse(verified.error));
  return { ok: true, response: verified.response };
}
