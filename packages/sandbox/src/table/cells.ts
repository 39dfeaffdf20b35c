/** Small readers over JSON objects used to compute `kubectl get` cells. */
import type { JsonObject, JsonValue } from "@kyverno-ts/api";

/** The value at a dotted path, or `undefined`. */
export function at(object: JsonValue | undefined, path: string): JsonValue | undefined {
  let current = object;
  for (const part of path.split(".")) {
    if (current === null || current === undefined || typeof current !== "object" || Array.isArray(current))
      return undefined;
    current = current[part];
  }
  return current;
}

/** A string at a path (`""` when absent or not a string). */
export function str(object: JsonValue | undefined, path: string): string {
  const v = at(object, path);
  return typeof v === "string" ? v : "";
}

/** A number at a path (0 when absent). */
export function num(object: JsonValue | undefined, path: string): number {
  const v = at(object, path);
  return typeof v === "number" ? v : 0;
}

/** A list at a path (empty when absent). */
export function list(object: JsonValue | undefined, path: string): JsonValue[] {
  const v = at(object, path);
  return Array.isArray(v) ? v : [];
}

/** A map at a path (empty when absent). */
export function map(object: JsonValue | undefined, path: string): JsonObject {
  const v = at(object, path);
  return v !== null && typeof v === "object" && !Array.isArray(v) ? v : {};
}

/** `<none>` for an empty cell, as kubectl prints. */
export function orNone(value: string): string {
  return value === "" ? "<none>" : value;
}

/**
 * Kubernetes' `duration.HumanDuration` (what the AGE column shows): `45s`, `5m12s`, `3h4m`, `2d5h`, `400d`.
 */
export function humanDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.floor(hours / 24)}d` : `${Math.floor(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.floor(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const days = Math.floor(hours / 24) % 365;
    return days === 0 ? `${Math.floor(hours / 24 / 365)}y` : `${Math.floor(hours / 24 / 365)}y${days}d`;
  }
  return `${Math.floor(hours / 24 / 365)}y`;
}
