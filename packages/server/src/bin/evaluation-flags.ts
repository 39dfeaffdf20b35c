/**
 * The evaluation budget flags (`--evaluationForeachElements`, `--evaluationPatternNodes`,
 * `--evaluationJMESPathSteps`, `--evaluationCELCost`) and the inline-first time
 * (`--evaluationInlineTime`) and the workers' scheduling (`--evaluationWorkerScheduling`): parsed and
 * validated once for the controllers that take them.
 */
import type { EvaluationLimits } from "@kyverno-ts/engine";
import { REQUESTED_SCHEDULING, type RequestedScheduling } from "../evaluation-pool/idle-scheduling.js";
import type { ParsedFlags } from "../flags/parse.js";

/** Each limit's flag. */
const LIMIT_FLAGS: Readonly<Record<keyof EvaluationLimits, string>> = {
  foreachElements: "evaluationForeachElements",
  patternNodes: "evaluationPatternNodes",
  jmespathSteps: "evaluationJMESPathSteps",
  celCost: "evaluationCELCost",
};

/** The largest budget accepted (beyond it a rule would run for hours anyway). */
const MAX_LIMIT = 1_000_000_000_000;
/** The longest inline-first time accepted: longer would hold the serving thread as without workers. */
const MAX_INLINE_MS = 1000;

/** The parsed settings, or a message naming the flag. */
export type EvaluationFlags =
  | { ok: true; limits: Partial<EvaluationLimits> }
  | { ok: false; message: string };

/**
 * The limits of the flags in `take` (the ones the controller has), each validated; only given ones
 * are returned (the engine's defaults, the same values, hold for the others).
 */
export function evaluationFlags(
  f: ParsedFlags,
  take: ReadonlyArray<keyof EvaluationLimits>,
): EvaluationFlags {
  const limits: Partial<{ -readonly [K in keyof EvaluationLimits]: number }> = {};
  for (const key of take) {
    const flag = LIMIT_FLAGS[key];
    const value = f.int(flag);
    if (!(Number.isSafeInteger(value) && value >= 1 && value <= MAX_LIMIT))
      return { ok: false, message: `--${flag} must be a whole number from 1 to ${MAX_LIMIT}, got ${value}` };
    if (f.given(flag)) limits[key] = value;
  }
  return { ok: true, limits };
}

/** `--evaluationInlineTime` in milliseconds (validated), for the admission controller. */
export function inlineTimeFlag(f: ParsedFlags): { ok: true; ms: number } | { ok: false; message: string } {
  const ms = f.durationMs("evaluationInlineTime");
  if (ms > MAX_INLINE_MS)
    return {
      ok: false,
      message: `--evaluationInlineTime must be at most ${MAX_INLINE_MS}ms (0s sends every request to the workers), got ${f.string("evaluationInlineTime")}`,
    };
  return { ok: true, ms };
}

/** `--evaluationWorkerScheduling` (validated), for the admission controller. */
export function workerSchedulingFlag(
  f: ParsedFlags,
): { ok: true; scheduling: RequestedScheduling } | { ok: false; message: string } {
  const value = f.string("evaluationWorkerScheduling");
  const scheduling = REQUESTED_SCHEDULING.find((known) => known === value);
  if (scheduling === undefined)
    return {
      ok: false,
      message: `--evaluationWorkerScheduling takes ${REQUESTED_SCHEDULING.join(" or ")}, got "${value}"`,
    };
  return { ok: true, scheduling };
}
