import { parseDurationMs } from "@kyverno-ts/k8s";
/**
 * The `cleanup.kyverno.io/ttl` label, read as upstream's TTL controller reads it: a Go duration
 * counted from the object's `creationTimestamp` (`5s`, `1h30m`), or an absolute time in UTC written
 * without colons (labels cannot hold them): `2006-01-02T150405Z` or `2006-01-02`. Anything else is
 * an error for the caller to report; it is never guessed.
 */

/** The TTL label. */
export const TTL_LABEL = "cleanup.kyverno.io/ttl";

/** The annotation that sets the deletion propagation policy of a TTL deletion. */
export const PROPAGATION_ANNOTATION = "cleanup.kyverno.io/propagation-policy";

/** Deletion propagation policies Kubernetes accepts. */
export type PropagationPolicy = "Foreground" | "Background" | "Orphan";

/** Outcome of `ttlDeletionTime`: when to delete (epoch ms), or why the value cannot be read. */
export type TtlParse = { ok: true; deleteAtMs: number } | { ok: false; message: string };

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A UTC time from its parts, or undefined when a part is out of range (Feb 30, hour 24). */
function utc(y: number, mo: number, d: number, h = 0, mi = 0, s = 0): number | undefined {
  const ms = Date.UTC(y, mo - 1, d, h, mi, s);
  const t = new Date(ms);
  const same =
    t.getUTCFullYear() === y &&
    t.getUTCMonth() === mo - 1 &&
    t.getUTCDate() === d &&
    t.getUTCHours() === h &&
    t.getUTCMinutes() === mi &&
    t.getUTCSeconds() === s;
  return same ? ms : undefined;
}

/** The message for a value that is neither a duration nor a time. */
export function ttlValueProblem(value: string): string {
  return `invalid value "${value}" of label ${TTL_LABEL}: expected a Go duration (e.g. 30s, 1h30m) or a UTC time as 2006-01-02T150405Z or 2006-01-02`;
}

/** When an object labelled `value` and created at `creationMs` is to be deleted. */
export function ttlDeletionTime(value: string, creationMs: number): TtlParse {
  const duration = parseDurationMs(value);
  if (duration !== undefined) return { ok: true, deleteAtMs: creationMs + duration };
  const dt = DATE_TIME.exec(value) ?? DATE.exec(value);
  if (dt !== null) {
    const [, y, mo, d, h, mi, s] = dt.map(Number) as number[];
    const at = utc(y as number, mo as number, d as number, h ?? 0, mi ?? 0, s ?? 0);
    if (at !== undefined) return { ok: true, deleteAtMs: at };
  }
  return { ok: false, message: ttlValueProblem(value) };
}

/** The propagation policy an object's annotation asks for; undefined (server default) otherwise. */
export function propagationPolicyOf(annotations: Readonly<Record<string, string>> | undefined): {
  policy: PropagationPolicy | undefined;
  problem?: string;
} {
  const value = annotations?.[PROPAGATION_ANNOTATION];
  if (value === undefined || value === "") return { policy: undefined };
  if (value === "Foreground" || value === "Background" || value === "Orphan") return { policy: value };
  return {
    policy: undefined,
    problem: `unknown propagation policy "${value}" in annotation ${PROPAGATION_ANNOTATION}; the server's default is used`,
  };
}
