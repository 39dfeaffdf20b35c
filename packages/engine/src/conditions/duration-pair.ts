/**
 * Reading a condition's key and value as a pair of durations, as Kyverno's `parseDuration` does for
 * `Equals` and the numeric operators: at least one side must be a Go duration string (`"90s"`; a bare
 * `"0"` does not count), and the other side may be a duration string or a number of seconds.
 */

import type { JsonValue } from "@kyverno-ts/api";
import { parseDurationExact } from "@kyverno-ts/k8s";

const NS_PER_SECOND = 1_000_000_000n;

/** A number of seconds as Go's `time.Duration(n) * time.Second` (fractions truncated), in nanoseconds. */
export function secondsToNanos(seconds: number): bigint | undefined {
  if (!Number.isFinite(seconds)) return undefined;
  return BigInt(Math.trunc(seconds)) * NS_PER_SECOND;
}

function durationString(v: JsonValue | undefined): bigint | undefined {
  if (typeof v !== "string" || v === "0") return undefined;
  return parseDurationExact(v);
}

function durationOrSeconds(v: JsonValue | undefined, asString: bigint | undefined): bigint | undefined {
  if (asString !== undefined) return asString;
  return typeof v === "number" ? secondsToNanos(v) : undefined;
}

/** Both sides in nanoseconds, or `undefined` when they cannot be compared as durations. */
export function durationPair(
  key: JsonValue,
  value: JsonValue | undefined,
): readonly [bigint, bigint] | undefined {
  const keyDuration = durationString(key);
  const valueDuration = durationString(value);
  if (keyDuration === undefined && valueDuration === undefined) return undefined;
  const k = durationOrSeconds(key, keyDuration);
  const v = durationOrSeconds(value, valueDuration);
  return k === undefined || v === undefined ? undefined : [k, v];
}

/** -1, 0 or 1 as `a` is below, equal to or above `b`. */
export function compareBig(a: bigint, b: bigint): -1 | 0 | 1 {
  return a < b ? -1 : a > b ? 1 : 0;
}
