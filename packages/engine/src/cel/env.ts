/**
 * The CEL environment of the policy kinds: `@bufbuild/cel` with Kubernetes' and Kyverno's
 * libraries. Expressions are rewritten (optional syntax), parsed, instrumented (cost) and planned
 * once in `compile`; a program only evaluates. Evaluation never throws: errors are values.
 */
import {
  type CelError,
  type CelFunc,
  CelScalar,
  type CelValue,
  celEnv,
  celFunc,
  isCelError,
  isCelList,
  isCelMap,
  parse,
  plan,
} from "@bufbuild/cel";
import { type ExpressionReads, prepareExpression, TICK_FUNCTION } from "./ast.js";
import { MAP_INSERT_FUNCTION } from "./comprehensions.js";
import { authzFunctions } from "./functions/authz.js";
import { kubernetesFunctions } from "./functions/kubernetes.js";
import { kyvernoFunctions } from "./functions/kyverno.js";
import { optionalFunctions } from "./functions/optional.js";
import { createRegexCache, stringFunctions } from "./functions/strings.js";
import { type ListArrays, PlanError, type Planned, Planner } from "./planner.js";
import { type CelSession, charge, type SessionSlot } from "./session.js";
import { rewriteOptionalSyntax } from "./syntax.js";

/** The function the one-call plan of every evaluation calls. */
const RUN_FUNCTION = "kyvernoRun__";

/** Outcome of evaluating a program: a value, or why it failed. */
export type CelOutcome = { ok: true; value: CelValue } | { ok: false; error: string };

/** A compiled expression. */
export interface CelProgram {
  readonly expression: string;
  /** The names it reads (`object`, `request`, `variables.<name>`, …). */
  readonly reads: ExpressionReads;
  /** Evaluates against `bindings` within `session` (cost budget, deadline, data loader). */
  evaluate(bindings: Readonly<Record<string, CelValue>>, session: CelSession): CelOutcome;
}

/** Outcome of compiling an expression: the program, or the error with its position. */
export type CelCompiled = { ok: true; program: CelProgram } | { ok: false; error: string };

/** A CEL environment: compile expressions once, evaluate them many times. */
export interface CelEnvironment {
  compile(expression: string): CelCompiled;
  /**
   * Runs `fn` (which evaluates programs) inside one evaluation context: evaluating a policy's
   * expressions within one call saves setting the context up for each.
   */
  within<T>(fn: () => T): T;
}

/** Options of `createCelEnvironment`. */
export interface CelEnvironmentOptions {
  /** The variables expressions may read (all typed `dyn`). */
  variables: readonly string[];
}

/**
 * Creates an environment with the given variables. Compilation is cached per expression: the same
 * expression in many policies is parsed and planned once.
 */
export function createCelEnvironment(options: CelEnvironmentOptions): CelEnvironment {
  const slot: SessionSlot = { current: undefined };
  const regex = createRegexCache();
  const funcs: CelFunc[] = [
    ...stringFunctions(regex),
    ...optionalFunctions,
    ...kubernetesFunctions(),
    ...kyvernoFunctions(slot),
    ...authzFunctions(slot),
    celFunc(
      MAP_INSERT_FUNCTION,
      [CelScalar.DYN, CelScalar.DYN, CelScalar.DYN],
      CelScalar.DYN,
      (map, key, value) => {
        if (!isCelMap(map)) throw new Error("transformMap needs a map accumulator");
        if (typeof key !== "string" && typeof key !== "bigint" && typeof key !== "boolean")
          throw new Error("unsupported map key type");
        const out = new Map<string | bigint | boolean, CelValue>();
        for (const [k, v] of map.entries()) out.set(k as string, v);
        out.set(key, value);
        return out as unknown as CelValue;
      },
    ),
    // The planner charges ranges itself (`tick` below); the function stays for any other caller.
    celFunc(TICK_FUNCTION, [CelScalar.DYN], CelScalar.DYN, (v) => {
      charge(slot, isCelList(v) || isCelMap(v) ? v.size + 1 : 1);
      return v;
    }),
  ];
  // Conversions such as `duration()` read `@bufbuild/cel`'s evaluation context, which only its own
  // plans set up: each evaluation runs inside a one-call plan whose function runs the job.
  const job: { run: (() => CelValue | CelError) | undefined; result: CelValue | CelError } = {
    run: undefined,
    result: null,
  };
  funcs.push(
    celFunc(RUN_FUNCTION, [], CelScalar.BOOL, () => {
      job.result = job.run?.() ?? null;
      return true;
    }),
  );
  const variables = Object.fromEntries(options.variables.map((v) => [v, CelScalar.DYN]));
  const env = celEnv({ variables, funcs });
  const runner = plan(env, parse(`${RUN_FUNCTION}()`));
  const inContext = (fn: () => CelValue | CelError): CelValue | CelError => {
    const outer = job.run;
    // Already inside an evaluation (a variable read by another expression): the context is set.
    if (outer !== undefined) return fn();
    job.run = fn;
    try {
      const done = runner({});
      return isCelError(done) ? done : job.result;
    } finally {
      job.run = outer;
    }
  };
  const known = new Set(options.variables);
  const tick = { name: TICK_FUNCTION, charge: (cost: number) => charge(slot, cost) };
  const arrays: ListArrays = new WeakMap();
  const cache = new Map<string, CelCompiled>();

  function build(expression: string): CelCompiled {
    const source = rewriteOptionalSyntax(expression);
    let parsed: ReturnType<typeof parse>;
    try {
      parsed = parse(source);
    } catch (error) {
      return { ok: false, error: `syntax error: ${message(error).replace(/^<input>:/, "")}` };
    }
    let prepared: ReturnType<typeof prepareExpression>;
    try {
      prepared = prepareExpression(parsed.expr);
    } catch (error) {
      return { ok: false, error: message(error) };
    }
    let run: Planned;
    try {
      run = new Planner(env, known, arrays, tick).planRoot(prepared.expr);
    } catch (error) {
      const text = message(error);
      const where =
        error instanceof PlanError
          ? position(source, parsed.sourceInfo?.positions[String(error.exprId)])
          : "";
      return {
        ok: false,
        error: `${where}${text.startsWith("undeclared") ? `${text} (in container '')` : text}`,
      };
    }
    const needsContext = [...prepared.reads.functions].some(usesMessages);
    const program: CelProgram = {
      expression,
      reads: prepared.reads,
      evaluate(bindings, session) {
        const previous = slot.current;
        slot.current = session;
        try {
          const value = needsContext ? inContext(() => run(bindings)) : run(bindings);
          if (session.stopped !== undefined) return { ok: false, error: session.stopped };
          if (isCelError(value)) return { ok: false, error: value.message };
          return { ok: true, value };
        } catch (error) {
          return { ok: false, error: session.stopped ?? message(error) };
        } finally {
          slot.current = previous;
        }
      },
    };
    return { ok: true, program };
  }

  return {
    within<T>(fn: () => T): T {
      if (job.run !== undefined) return fn();
      const out: { done?: { value: T } | { thrown: unknown } } = {};
      inContext(() => {
        try {
          out.done = { value: fn() };
        } catch (thrown) {
          out.done = { thrown };
        }
        return null;
      });
      const done = out.done ?? { thrown: new Error("the evaluation did not run") };
      if ("thrown" in done) throw done.thrown;
      return done.value;
    },
    compile(expression) {
      let hit = cache.get(expression);
      if (hit === undefined) {
        hit = build(expression);
        cache.set(expression, hit);
      }
      return hit;
    },
  };
}

/**
 * Whether a function works on timestamps or durations, which `@bufbuild/cel` represents as protobuf
 * messages that need its evaluation context; other expressions run without setting it up.
 */
function usesMessages(fn: string): boolean {
  return fn === "timestamp" || fn === "duration" || fn.startsWith("time.") || /^get[A-Z]/.test(fn);
}

/** `line:column: ` of an offset in the source (1-based), or nothing when unknown. */
function position(source: string, offset: number | undefined): string {
  if (offset === undefined) return "";
  const before = source.slice(0, offset);
  const line = before.split("\n").length;
  const column = offset - before.lastIndexOf("\n");
  return `${line}:${column}: `;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
