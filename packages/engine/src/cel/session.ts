/**
 * One evaluation's state that library functions reach: the cost budget and deadline, the data
 * loader (`resource`, `http`, `globalContext`, image data) and the clock. The environment holds the
 * session of the evaluation in progress (evaluation is synchronous, so there is at most one).
 */
import type { KubeObject } from "@kyverno-ts/api";
import { BudgetMessages } from "../budget/budget.js";
import type { ContextLoader } from "../engine-types.js";

/** Comprehension iterations one policy evaluation may run (the API server's budget, in iterations). */
export const DEFAULT_COST_BUDGET = 1_000_000;
/** Wall-clock limit of one policy evaluation, in milliseconds. */
export const DEFAULT_DEADLINE_MS = 1_000;

/** The state of one evaluation. */
export interface CelSession {
  /** Remaining comprehension iterations. */
  budget: number;
  /** How many comprehensions were charged (the deadline is checked every 64). */
  charges: number;
  /** Why the evaluation was stopped (cost or deadline), once it was. */
  stopped: string | undefined;
  /** Monotonic milliseconds after which the evaluation is stopped. */
  readonly deadline: number;
  readonly monotonic: () => number;
  /** True once the request's deadline has passed (checked with the session's own deadline). */
  readonly expired: () => boolean;
  readonly loader: ContextLoader;
  /** The request's time, for `time.now()`. */
  readonly now: Date;
  /** GeneratingPolicy: where `generator.Apply` puts the objects to generate. */
  generated?: KubeObject[];
}

/** Options of `createSession`. */
export interface SessionOptions {
  loader?: ContextLoader;
  now?: Date;
  budget?: number;
  deadlineMs?: number;
  monotonic?: () => number;
  /** The request's deadline, on the engine's clock (a rule's evaluation budget answers it). */
  expired?: (() => boolean) | undefined;
}

const NEVER = (): boolean => false;
const PERFORMANCE_NOW = (): number => performance.now();

/** Starts the state of one policy evaluation. */
export function createSession(options: SessionOptions = {}): CelSession {
  const monotonic = options.monotonic ?? PERFORMANCE_NOW;
  return {
    budget: options.budget ?? DEFAULT_COST_BUDGET,
    charges: 0,
    stopped: undefined,
    deadline: monotonic() + (options.deadlineMs ?? DEFAULT_DEADLINE_MS),
    monotonic,
    expired: options.expired ?? NEVER,
    loader: options.loader ?? {},
    now: options.now ?? new Date(),
  };
}

/** Where library functions find the session of the evaluation in progress. */
export interface SessionSlot {
  current: CelSession | undefined;
}

/** Charges `cost` iterations; throws once the budget or the deadline is exceeded. */
export function charge(slot: SessionSlot, cost: number): void {
  const session = slot.current;
  if (session === undefined) return;
  if (session.stopped !== undefined) throw new Error(session.stopped);
  session.budget -= cost;
  if (session.budget < 0) {
    session.stopped = "operation cancelled: actual cost limit exceeded";
    throw new Error(session.stopped);
  }
  session.charges++;
  if ((session.charges & 63) === 0) {
    if (session.monotonic() > session.deadline)
      session.stopped = "operation cancelled: evaluation deadline exceeded";
    else if (session.expired()) session.stopped = BudgetMessages.deadline;
    if (session.stopped !== undefined) throw new Error(session.stopped);
  }
}
