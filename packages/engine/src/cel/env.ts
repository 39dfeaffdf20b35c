/**
 * The CEL environment of the policy kinds: `@bufbuild/cel` with Kubernetes' and Kyverno's
 * libraries. Expressions are rewritten (optional syntax), parsed, instrumented (cost) and planned
 * once in `compile`; a program only evaluates. Evaluation never throws: errors are values.
 */
import {
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
import { kubernetesFunctions } from "./functions/kubernetes.js";
import { kyvernoFunctions } from "./functions/kyverno.js";
import { optionalFunctions } from "./functions/optional.js";
import { createRegexCache, stringFunctions } from "./functions/strings.js";
import { type CelSession, charge, type SessionSlot } from "./session.js";
import { rewriteOptionalSyntax } from "./syntax.js";

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
    celFunc(TICK_FUNCTION, [CelScalar.DYN], CelScalar.DYN, (v) => {
      charge(slot, isCelList(v) || isCelMap(v) ? v.size + 1 : 1);
      return v;
    }),
  ];
  const variables = Object.fromEntries(options.variables.map((v) => [v, CelScalar.DYN]));
  const env = celEnv({ variables, funcs });
  const known = new Set(options.variables);
  const cache = new Map<string, CelCompiled>();

  function build(expression: string): CelCompiled {
    let parsed: ReturnType<typeof parse>;
    try {
      parsed = parse(rewriteOptionalSyntax(expression));
    } catch (error) {
      return { ok: false, error: `syntax error: ${message(error).replace(/^<input>:/, "")}` };
    }
    let prepared: ReturnType<typeof prepareExpression>;
    try {
      prepared = prepareExpression(parsed.expr);
    } catch (error) {
      return { ok: false, error: message(error) };
    }
    const unknown = [...prepared.reads.identifiers].filter((id) => !known.has(id) && !NAMESPACES.has(id));
    if (unknown.length > 0)
      return { ok: false, error: `undeclared reference to '${unknown[0]}' (in container '')` };
    let run: (ctx: Record<string, CelValue>) => ReturnType<ReturnType<typeof plan>>;
    try {
      run = plan(env, prepared.expr) as typeof run;
    } catch (error) {
      return { ok: false, error: message(error) };
    }
    const program: CelProgram = {
      expression,
      reads: prepared.reads,
      evaluate(bindings, session) {
        const previous = slot.current;
        slot.current = session;
        try {
          const value = run(bindings as Record<string, CelValue>);
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

/** Identifiers that name function namespaces (`optional.of`, `resource.Get`, …), not variables. */
const NAMESPACES: ReadonlySet<string> = new Set([
  "optional",
  "cel",
  "lists",
  "sets",
  "base64",
  "strings",
  "math",
  "format",
  "resource",
  "http",
  "globalContext",
  "image",
  "imagedata",
  "json",
  "yaml",
  "time",
  "x509",
  "jsonpatch",
  "generator",
  "random",
  "ip",
  "cidr",
  "url",
  "semver",
  "quantity",
  "user",
]);

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
