/**
 * When a cleanup policy runs, as upstream decides it: the next occurrence of its schedule after
 * `status.lastExecutionTime` (after `metadata.creationTimestamp` before the first run). When that
 * time has come the policy runs, `lastExecutionTime` becomes that occurrence, and the policy waits
 * for the occurrence after it.
 *
 * One difference: after a downtime spanning several occurrences, upstream runs once per missed
 * occurrence, back to back; here one run stands for all of them (the latest missed occurrence is
 * recorded), as a cron daemon does.
 */
import type { KubeObject } from "@kyverno-ts/api";
import { cleanupSpecOf, lastExecutionOf } from "./cleanup-policy.js";
import { parseSchedule } from "./schedule.js";

/** What to do with a policy now. */
export type ExecutionDecision =
  | { type: "wait"; at: number }
  | { type: "run"; executionTime: number; next: number | undefined }
  | { type: "invalid"; message: string };

/** Most occurrences skipped over when catching up (a `@every 1s` policy down for a day is 86,400). */
const MAX_CATCH_UP = 1_000_000;

/** Decides from the policy's schedule, status and creation time, at `now` (epoch ms). */
export function executionDecision(policy: KubeObject, now: number): ExecutionDecision {
  const expression = cleanupSpecOf(policy).schedule ?? "";
  const parsed = parseSchedule(expression);
  if (!parsed.ok)
    return { type: "invalid", message: `spec.schedule ${JSON.stringify(expression)}: ${parsed.message}` };
  const created = Date.parse(String(policy.metadata?.creationTimestamp ?? ""));
  const base = lastExecutionOf(policy) ?? (Number.isNaN(created) ? now : created);
  const { schedule } = parsed;
  let due = schedule.next(base);
  if (due === undefined)
    return { type: "invalid", message: `spec.schedule ${JSON.stringify(expression)} never fires` };
  if (due > now) return { type: "wait", at: due };
  let next = schedule.next(due);
  for (let i = 0; next !== undefined && next <= now && i < MAX_CATCH_UP; i++) {
    due = next;
    next = schedule.next(due);
  }
  return { type: "run", executionTime: due, next };
}

/** `lastExecutionTime` as written to the status: RFC 3339 in whole seconds, as metav1.Time. */
export function executionTimeText(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}
