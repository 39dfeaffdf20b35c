/**
 * The webhook's `keepalive` key: how the loader reads it, and the heartbeat options built from it.
 */
import { parseDurationMs } from "@kyverno-ts/k8s";
import type { Section } from "../../config/read.js";
import type { KeepaliveOptions } from "../webhook/webhook.js";
import { TargetConfigError } from "./errors.js";
import type { BuildBase } from "./kind-spec.js";

/** `target.webhook.keepalive`. */
export interface KeepaliveConfig {
  /** Go duration ("30s", "1m") or milliseconds; "0" disables. */
  interval?: string | number;
  params?: Record<string, string>;
}

/** Reads a `keepalive` mapping; the interval is checked when the target is built. */
export function readKeepalive(k: Section): KeepaliveConfig {
  const interval = k.raw("interval");
  if (interval !== undefined && typeof interval !== "string" && typeof interval !== "number") {
    k.str("interval"); // throws with the key
  }
  const params = k.strMap("params");
  return {
    ...(interval === undefined ? {} : { interval: interval as string | number }),
    ...(params ? { params } : {}),
  };
}

/** The heartbeat of a webhook target, or undefined when its interval is 0 or unset. */
export function keepaliveOptions(
  config: { webhook?: string; keepalive?: KeepaliveConfig; headers?: Record<string, string> },
  base: BuildBase,
  path: string,
): KeepaliveOptions | undefined {
  const keepalive = config.keepalive;
  const intervalMs = keepaliveIntervalMs(keepalive?.interval);
  if (intervalMs === undefined) {
    throw new TargetConfigError(`${path}.keepalive.interval`, `not a duration: "${keepalive?.interval}"`);
  }
  if (intervalMs === 0) return undefined;
  return {
    name: base.name,
    webhook: String(config.webhook),
    intervalMs,
    ...(keepalive?.params ? { params: keepalive.params } : {}),
    ...(config.headers ? { headers: config.headers } : {}),
  };
}

/** A keepalive interval in milliseconds: a Go duration ("30s", "1m30s", "500ms", "0", read by the shared parser) or a number of milliseconds; undefined if invalid or negative. */
export function keepaliveIntervalMs(value: string | number | undefined): number | undefined {
  if (value === undefined) return 0;
  if (typeof value === "number") return Number.isFinite(value) && value >= 0 ? value : undefined;
  const v = value.trim();
  if (v === "") return 0;
  const ms = parseDurationMs(v);
  return ms === undefined || ms < 0 ? undefined : ms;
}
