/**
 * Evaluation budgets: how much work one rule may do (foreach elements, pattern nodes, JMESPath steps,
 * CEL cost) and the request's deadline, both checked while the rule runs. Upstream bounds CEL by cost
 * (the API server's per-call limit) and has no bound for the classic engine; these are ours, chosen so
 * an ordinary rule never comes near them (a Pod with 100 containers of 100 env vars is 10,000
 * elements of a nested foreach) and a hostile one stops within a fraction of a second.
 *
 * A budget is one object per rule evaluation. Exceeding it throws `BudgetExceeded`, an internal abort
 * signal the rule loop catches at the rule's boundary and turns into an `error` result: it never
 * leaves the engine.
 */

/** The limits of one rule's evaluation (`EngineOptions.limits`; any left out take the defaults). */
export interface EvaluationLimits {
  /** Elements a rule's foreach loops may visit, summed over every list at every nesting level. */
  readonly foreachElements: number;
  /** Resource nodes a rule's pattern checks (`pattern`, `anyPattern`, anchors) may visit. */
  readonly patternNodes: number;
  /** JMESPath work of a rule: projected or filtered elements and function calls. */
  readonly jmespathSteps: number;
  /** CEL cost of one `validate.cel` rule or CEL policy evaluation (comprehension iterations). */
  readonly celCost: number;
}

/**
 * The default limits. CEL's is the API server's per-expression cost limit; the classic ones are ~0.2 s
 * of work each on one core (1,000 × 1,000 foreach elements took 2 s before they existed).
 */
export const DEFAULT_EVALUATION_LIMITS: Readonly<EvaluationLimits> = Object.freeze({
  foreachElements: 100_000,
  patternNodes: 1_000_000,
  jmespathSteps: 1_000_000,
  celCost: 1_000_000,
});

/** The kinds of work a budget counts (CEL counts its own cost in its session). */
export type BudgetKind = "foreachElements" | "patternNodes" | "jmespathSteps";

/** What each kind of work is called in the message of an exceeded budget. */
const WORK: Readonly<Record<BudgetKind, string>> = {
  foreachElements: "foreach elements",
  patternNodes: "pattern nodes",
  jmespathSteps: "JMESPath steps",
};

/** How many units of work pass between two reads of the clock for the deadline. */
const DEADLINE_CHECK_INTERVAL = 4096;

/** The message of a rule stopped by its budget or by the request's deadline. */
export const BudgetMessages = {
  exceeded: (kind: BudgetKind, limit: number): string =>
    `evaluation budget exceeded: more than ${limit} ${WORK[kind]} in one rule`,
  deadline: "evaluation budget exceeded: the request's deadline passed during the rule",
} as const;

/** Thrown inside a rule when its budget or the deadline is exceeded; caught at the rule's boundary. */
export class BudgetExceeded extends Error {
  override readonly name = "BudgetExceeded";
}

/** The remaining work of one rule evaluation. */
export interface Budget {
  /** Charges `units` of work of `kind`; throws `BudgetExceeded` once a limit or the deadline is passed. */
  charge(kind: BudgetKind, units: number): void;
  /** True once the deadline has passed (reads the clock). A method: call it on the budget. */
  expired(): boolean;
  /** The CEL cost one CEL evaluation of the rule may spend. */
  readonly celCost: number;
}

/** Options of `createBudget`. */
export interface BudgetOptions {
  limits: Readonly<EvaluationLimits>;
  /** Milliseconds on the `now` clock after which the rule stops; no deadline when undefined. */
  deadline?: number | undefined;
  now: () => number;
}

/**
 * Starts the budget of one rule evaluation. One object per rule (the rule loop makes one for every
 * rule of every request): its counters are fields and its methods are shared, where closures over a
 * counters record cost four objects per rule.
 */
export function createBudget(options: BudgetOptions): Budget {
  return new RuleBudget(options.limits, options.deadline, options.now);
}

class RuleBudget implements Budget {
  readonly celCost: number;
  #foreachElements: number;
  #patternNodes: number;
  #jmespathSteps: number;
  #untilCheck = DEADLINE_CHECK_INTERVAL;
  readonly #limits: Readonly<EvaluationLimits>;
  readonly #deadline: number | undefined;
  readonly #now: () => number;

  constructor(limits: Readonly<EvaluationLimits>, deadline: number | undefined, now: () => number) {
    this.celCost = limits.celCost;
    this.#foreachElements = limits.foreachElements;
    this.#patternNodes = limits.patternNodes;
    this.#jmespathSteps = limits.jmespathSteps;
    this.#limits = limits;
    this.#deadline = deadline;
    this.#now = now;
  }

  expired(): boolean {
    return this.#deadline !== undefined && this.#now() > this.#deadline;
  }

  charge(kind: BudgetKind, units: number): void {
    let left: number;
    if (kind === "patternNodes") left = this.#patternNodes -= units;
    else if (kind === "jmespathSteps") left = this.#jmespathSteps -= units;
    else left = this.#foreachElements -= units;
    if (left < 0) throw new BudgetExceeded(BudgetMessages.exceeded(kind, this.#limits[kind]));
    this.#untilCheck -= units;
    if (this.#untilCheck <= 0) {
      this.#untilCheck = DEADLINE_CHECK_INTERVAL;
      if (this.expired()) throw new BudgetExceeded(BudgetMessages.deadline);
    }
  }
}

/** The limits with the defaults filled in; a limit that is not a positive number is an error. */
export function evaluationLimits(partial: Partial<EvaluationLimits> | undefined): Readonly<EvaluationLimits> {
  if (partial === undefined) return DEFAULT_EVALUATION_LIMITS;
  const limits = { ...DEFAULT_EVALUATION_LIMITS, ...partial };
  for (const [name, value] of Object.entries(limits)) {
    if (!(typeof value === "number" && value > 0))
      throw new RangeError(`evaluation limit ${name} must be a positive number, got ${String(value)}`);
  }
  return Object.freeze(limits);
}
