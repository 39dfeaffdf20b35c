/**
 * The validating webhook dispatcher (upstream validating/dispatcher.go): every matching webhook is
 * called in parallel on the final object; the first error to arrive rejects the request.
 */
import { callWebhook } from "./call.js";
import type { WebhookSpec } from "./config.js";
import { addAnnotation, addWarning, type DispatchContext, requestDone } from "./context.js";
import {
  callingWebhookMessage,
  internalError,
  logLine,
  requestTimeout,
  transport,
  webhookDenied,
} from "./errors.js";
import { shouldCallHook } from "./should-call.js";
import type { AdmissionAttributes, StatusError } from "./types.js";

async function callValidatingHook(
  hook: WebhookSpec,
  attrs: AdmissionAttributes,
  ctx: DispatchContext,
  index: number,
): Promise<StatusError | undefined> {
  const called = await callWebhook(hook, attrs, false, ctx);
  if (called.ok) {
    const r = called.response;
    for (const [k, v] of Object.entries(r.auditAnnotations)) addAnnotation(ctx, `${hook.name}/${k}`, v);
    for (const w of r.warnings) addWarning(ctx, w);
    if (r.allowed) return undefined;
    const status = webhookDenied(hook.name, r.status);
    ctx.logger.warn({ webhook: hook.name }, logLine.rejected(hook.name, status.message));
    return status;
  }
  const error = called.error;
  if (error.type !== "calling") return error.status;
  const message = callingWebhookMessage(hook.name, error.reason);
  if (hook.failurePolicy === "Ignore") {
    ctx.logger.warn({ webhook: hook.name }, logLine.failingOpen(hook.name, message));
    if (!error.reason.endsWith(transport.canceled)) {
      addAnnotation(ctx, `failed-open.validating.webhook.admission.k8s.io/round_0_index_${index}`, hook.name);
    }
    return undefined;
  }
  ctx.logger.warn({ webhook: hook.name }, logLine.failingClosed(hook.name, message));
  return internalError(message);
}

/**
 * Matches every validating webhook first (a selector or matchConditions error fails the request before
 * any call), then calls the matching ones concurrently and waits for all. Returns the first error to
 * arrive (upstream takes the first off its channel), or undefined when the request is allowed.
 */
export async function runValidating(
  attrs: AdmissionAttributes,
  ctx: DispatchContext,
  hooks: readonly WebhookSpec[],
): Promise<StatusError | undefined> {
  const relevant: WebhookSpec[] = [];
  for (const hook of hooks) {
    const decision = shouldCallHook(hook, attrs, ctx);
    if (decision.error !== undefined) return decision.error;
    if (decision.call) relevant.push(hook);
  }
  if (relevant.length === 0) return undefined;
  if (requestDone(ctx)) return requestTimeout();
  const errors: StatusError[] = [];
  await Promise.all(
    relevant.map(async (hook, index) => {
      const error = await callValidatingHook(hook, attrs, ctx, index);
      if (error !== undefined) errors.push(error);
    }),
  );
  return errors[0];
}
