/**
 * Generic webhook target (single mode): the shared JSON body per result, with configured headers;
 * an optional keepalive heartbeat.
 */

import { sleep } from "@kyverno-ts/api";
import { sendEach } from "../delivery/send-each.js";
import { createJsonSender } from "../delivery/sender.js";
import { sharedJsonResult } from "../format.js";
import type { BaseTargetOptions, NotifiableResult, SendContext, Target, TargetDeps } from "../types.js";

/** Options of the webhook target. */
export interface WebhookOptions extends BaseTargetOptions {
  /** The receiving URL. */
  webhook: string;
}

/**
 * Creates the webhook target: POSTs `sharedJsonResult` (custom fields merged into `properties`) per result.
 * A resolved result is sent the same way; its `status` is `pass`.
 */
export function createWebhookTarget(options: WebhookOptions, deps: TargetDeps): Target {
  const name = options.name ?? "Webhook";
  const post = createJsonSender(name, options.headers, options.delivery, deps);
  const send = async (result: NotifiableResult, _context?: SendContext): Promise<void> => {
    await post({
      url: options.webhook,
      payload: sharedJsonResult(result, options.customFields, new Date(deps.clock.now())),
    });
  };
  return { name, send, sendBatch: (results, context) => sendEach(results, (r) => send(r, context)) };
}

/** Options of the webhook keepalive (`keepalive` in the webhook configuration). */
export interface KeepaliveOptions extends Pick<BaseTargetOptions, "name" | "headers" | "delivery"> {
  webhook: string;
  /** Heartbeat interval in milliseconds; 0 disables it. */
  intervalMs: number;
  /** Added to every heartbeat body. */
  params?: Readonly<Record<string, string>>;
}

/** A running keepalive. */
export interface Keepalive {
  /** Stops the heartbeat and waits for an in-flight one. */
  stop(): Promise<void>;
}

/** The heartbeat body: `{type: "heartbeat", timestamp, ...params}`. */
export function heartbeatPayload(params: Readonly<Record<string, string>> | undefined, now: Date) {
  return { type: "heartbeat", timestamp: now.toISOString(), ...params };
}

/**
 * Starts POSTing a heartbeat to the webhook every `intervalMs` (first one immediately), so the receiver
 * can alert when the reporter goes quiet. Failed heartbeats are logged and counted, not retried beyond the
 * sender's policy.
 */
export function startWebhookKeepalive(options: KeepaliveOptions, deps: TargetDeps): Keepalive {
  const name = options.name ?? "Webhook";
  const post = createJsonSender(name, options.headers, { retries: 0, ...options.delivery }, deps);
  const stop = new AbortController();
  const loop = async (): Promise<void> => {
    if (options.intervalMs <= 0) return;
    while (!stop.signal.aborted) {
      try {
        await post({
          url: options.webhook,
          payload: heartbeatPayload(options.params, new Date(deps.clock.now())),
        });
      } catch {
        // Already logged and reported by the sender.
      }
      await sleep(deps.clock, options.intervalMs, stop.signal);
    }
  };
  const running = loop();
  return {
    stop() {
      stop.abort();
      return running;
    },
  };
}
