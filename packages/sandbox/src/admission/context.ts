/**
 * Per-request state shared by the mutating and validating dispatchers: the deadline, the collected
 * warnings and audit annotations, and the chain's collaborators.
 */
import type { Logger } from "@kyverno-ts/api";
import type { ServiceResolver } from "./http-client.js";
import type { MatchConditionsEvaluator } from "./match-conditions.js";

/** Everything a dispatcher needs for one request. */
export interface DispatchContext {
  readonly resolveService: ServiceResolver | undefined;
  /** Where the chain warns what upstream logs with klog.Warningf (fields: `webhook`). */
  readonly logger: Logger;
  readonly now: () => number;
  /** Absolute deadline of the request, in `now()` milliseconds. */
  readonly deadline: number;
  readonly signal: AbortSignal | undefined;
  readonly conditions: MatchConditionsEvaluator;
  readonly randomUUID: () => string;
  /** Warnings in arrival order, deduplicated and without empties (the apiserver's warning recorder). */
  readonly warnings: string[];
  /** Audit annotations; a key keeps its first value, as `Attributes.AddAnnotation` refuses overwrites. */
  readonly auditAnnotations: Record<string, string>;
}

/** Records a warning unless it is empty or already recorded. */
export function addWarning(ctx: DispatchContext, warning: string): void {
  if (warning !== "" && !ctx.warnings.includes(warning)) ctx.warnings.push(warning);
}

/** Records an audit annotation unless the key already holds a value. */
export function addAnnotation(ctx: DispatchContext, key: string, value: string): void {
  if (!Object.hasOwn(ctx.auditAnnotations, key)) ctx.auditAnnotations[key] = value;
}

/** True once the request itself timed out or was canceled (upstream's `ctx.Done()`). */
export function requestDone(ctx: DispatchContext): boolean {
  return ctx.now() >= ctx.deadline || ctx.signal?.aborted === true;
}
