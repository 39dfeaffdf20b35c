/**
 * The Jmespath instance: a private interpreter with Kyverno's function table, an AST cache, and a
 * `search` that turns every failure into a result value.
 *
 * Function tables: `@jmespath-community/jmespath` keeps its `registerFunction`/`register` table on a
 * module-level singleton interpreter, so registering there would leak functions (and their captured
 * clock and limits) between instances and between tests. Instead each instance constructs its own
 * interpreter from the singleton's class (`TreeInterpreter.constructor`), which builds a fresh
 * Runtime with its own built-in table, and registers into that runtime only. The global singleton
 * is never touched.
 */

import {
  compile,
  type InputSignature,
  TreeInterpreter,
  TYPE_ANY,
  TYPE_ARRAY,
  TYPE_ARRAY_NUMBER,
  TYPE_ARRAY_STRING,
  TYPE_BOOLEAN,
  TYPE_EXPREF,
  TYPE_NULL,
  TYPE_NUMBER,
  TYPE_OBJECT,
  TYPE_STRING,
} from "@jmespath-community/jmespath";
import type { JsonValue } from "@kyverno-ts/api";
import { BudgetExceeded } from "../budget/budget.js";
import { arithmeticFunctions } from "./arithmetic.js";
import { BUILTIN_DESCRIPTIONS, boundedBuiltins } from "./builtins.js";
import type { ArgSpec, ArgType, FunctionContext, FunctionDef } from "./context.js";
import { dataFunctions } from "./data.js";
import { messageOf } from "./errors.js";
import { imageFunctions } from "./image.js";
import { type Ast, type FunctionCaller, type Plan, planExpression } from "./plan.js";
import { randomFunctions } from "./random.js";
import { compileRegex, regexFunctions } from "./regex.js";
import { semverFunctions } from "./semver.js";
import { stringFunctions } from "./strings.js";
import { timeFunctions } from "./time.js";
import { x509Functions } from "./x509.js";

/** Options of {@link createJmespath}. */
export interface JmespathOptions {
  /** The time functions' clock (epoch milliseconds). */
  clock: { now(): number };
  /** Longest string a function may build (UTF-16 code units). Default 1 MiB. */
  maxStringLength?: number;
  /** Longest array a function may build. Default 100 000. */
  maxArrayLength?: number;
}

/** Outcome of a search: a value, or an error message. */
export type JmespathResult = { ok: true; value: JsonValue } | { ok: false; error: string };

/**
 * Counts a search's work (elements projected or filtered, function calls and the array elements they
 * take); a rule's evaluation budget is one. What it throws stops the search and is rethrown.
 */
export interface JmespathMeter {
  charge(kind: "jmespathSteps", units: number): void;
}

/** A JMESPath evaluator with Kyverno's functions. */
export interface Jmespath {
  /**
   * Parse once (cached per instance, bounded to ~2000 recently used entries) and evaluate. Never
   * throws, except the abort of an exceeded `meter` (the rule's evaluation budget).
   */
  search(expression: string, data: JsonValue, meter?: JmespathMeter): JmespathResult;
  /** Parse only: returns an error message for a syntax error or an unknown function name. */
  check(expression: string): string | undefined;
  /** Function list with signatures and descriptions, for `kyverno-ts jp function`. */
  functions(): Array<{ name: string; signature: string; returnType: string; description: string }>;
}

type Interpreter = typeof TreeInterpreter;

/** A parsed expression: its AST, its plan when it has one, and whether its result cannot outgrow its input. */
interface Parsed {
  ast: Ast;
  plan: Plan | undefined;
  bounded: boolean;
}
type RuntimeFunction = Parameters<Interpreter["runtime"]["register"]>[1];

const DEFAULT_MAX_STRING = 1 << 20;
const DEFAULT_MAX_ARRAY = 100_000;
const CACHE_SIZE = 1000;
/**
 * Longer expressions are parsed every time instead of cached: after `{{ }}` substitution they often
 * embed request data as literals, are rarely repeated, and would pin large ASTs in the cache.
 */
const MAX_CACHED_EXPRESSION_LENGTH = 4096;
/** How much larger than the per-function limits a whole result may be (it may echo large input). */
const RESULT_FACTOR = 8;

const TYPE_IDS: Record<ArgType, number> = {
  any: TYPE_ANY,
  string: TYPE_STRING,
  number: TYPE_NUMBER,
  boolean: TYPE_BOOLEAN,
  array: TYPE_ARRAY,
  object: TYPE_OBJECT,
  null: TYPE_NULL,
  expref: TYPE_EXPREF,
  "array[string]": TYPE_ARRAY_STRING,
  "array[number]": TYPE_ARRAY_NUMBER,
};
const TYPE_NAMES = [
  "number",
  "any",
  "string",
  "array",
  "object",
  "boolean",
  "expression",
  "null",
  "array[number]",
  "array[string]",
  "array[object]",
  "array[array]",
];

/** All Kyverno functions plus the bounded built-in replacements, for one instance. */
function kyvernoFunctions(): FunctionDef[] {
  return [
    ...boundedBuiltins,
    ...stringFunctions,
    ...regexFunctions(),
    ...randomFunctions,
    ...arithmeticFunctions,
    ...dataFunctions,
    ...semverFunctions,
    ...imageFunctions(),
    ...timeFunctions,
    ...x509Functions,
  ];
}

function signatureText(
  name: string,
  args: ReadonlyArray<{ types: readonly string[]; optional?: boolean; variadic?: boolean }>,
): string {
  const parts = args.map((a) => {
    const t = a.types.join("|");
    return a.variadic === true ? `${t}...` : a.optional === true ? `[${t}]` : t;
  });
  return `${name}(${parts.join(", ")})`;
}

/** Throws when a result echoes more data than any sane policy needs (e.g. `[@,@,@]` nested). */
function checkResultSize(value: unknown, ctx: FunctionContext): void {
  if (value === null || typeof value !== "object") return;
  const maxNodes = RESULT_FACTOR * ctx.maxArrayLength;
  const maxChars = RESULT_FACTOR * ctx.maxStringLength;
  let nodes = 0;
  let chars = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    nodes++;
    if (typeof v === "string") chars += v.length;
    else if (Array.isArray(v)) for (const item of v) stack.push(item);
    else if (v !== null && typeof v === "object") {
      const record = v as Record<string, unknown>;
      for (const key of Object.keys(record)) {
        chars += key.length;
        stack.push(record[key]);
      }
    }
    if (nodes > maxNodes || chars > maxChars) throw new Error("result exceeds the size limit");
  }
}

/** Nodes whose result is a part of their input (or one of their operands). */
const SELECTING_NODES = new Set([
  "Field",
  "Subexpression",
  "IndexExpression",
  "Index",
  "Current",
  "Identity",
  "Slice",
  "Flatten",
  "Pipe",
  "OrExpression",
  "AndExpression",
]);
const PROJECTION_NODES = new Set(["Projection", "ValueProjection", "FilterProjection"]);
/** Nodes whose result is a boolean, whatever their operands. */
const BOOLEAN_NODES = new Set(["Comparator", "NotExpression"]);

/**
 * True when an expression cannot return more data than it was given (`a.b[0].c`, `a[].b || \`[]\``,
 * `x[?y == 'z'].name`): its result is then made of parts of the input, of literals of the expression
 * itself, or booleans, and needs no size check. Functions and multi-selects (which can repeat the
 * same data many times over) do, and so does a literal evaluated once per projected element.
 */
function cannotGrow(node: unknown, perElement = false): boolean {
  if (node === null || typeof node !== "object") return true;
  const record = node as Record<string, unknown>;
  const type = record.type;
  if (typeof type !== "string") return false;
  if (BOOLEAN_NODES.has(type)) return true;
  if (type === "Literal") return !perElement;
  // A filter's condition is only tested; its value never reaches the result.
  if (PROJECTION_NODES.has(type))
    return cannotGrow(record.left, perElement) && cannotGrow(record.right, true);
  if (!SELECTING_NODES.has(type)) return false;
  return (
    cannotGrow(record.left, perElement) &&
    cannotGrow(record.right, perElement) &&
    cannotGrow(record.child, perElement)
  );
}

/** Functions whose first argument is a Go RE2 regular expression. */
const REGEX_FUNCTIONS = new Set(["regex_match", "regex_replace_all", "regex_replace_all_literal"]);

/** Compiles every literal regex argument of the regex functions; returns the first syntax error. */
function invalidLiteralRegex(node: unknown): string | undefined {
  if (node === null || typeof node !== "object") return undefined;
  if (Array.isArray(node)) {
    for (const child of node) {
      const found = invalidLiteralRegex(child);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  const record = node as Record<string, unknown>;
  if (record.type === "Function" && typeof record.name === "string" && REGEX_FUNCTIONS.has(record.name)) {
    const first = Array.isArray(record.children)
      ? (record.children[0] as Record<string, unknown> | undefined)
      : undefined;
    if (first?.type === "Literal" && typeof first.value === "string") {
      const compiled = compileRegex(first.value);
      if (typeof compiled === "string")
        return `${record.name}: invalid regular expression "${first.value}": ${compiled}`;
    }
  }
  if (record.type === "Literal") return undefined;
  for (const value of Object.values(record)) {
    const found = invalidLiteralRegex(value);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Visits every Function node of an AST and returns the first unknown name. */
function unknownFunction(node: unknown, known: (name: string) => boolean): string | undefined {
  if (node === null || typeof node !== "object") return undefined;
  if (Array.isArray(node)) {
    for (const child of node) {
      const found = unknownFunction(child, known);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  const record = node as Record<string, unknown>;
  if (record.type === "Function" && typeof record.name === "string" && !known(record.name))
    return record.name;
  if (record.type === "Literal") return undefined;
  for (const value of Object.values(record)) {
    const found = unknownFunction(value, known);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** What a function call costs: one, plus the elements of the arrays it takes. */
function callUnits(args: readonly unknown[]): number {
  let units = 1;
  for (const a of args) if (Array.isArray(a)) units += a.length;
  return units;
}

/** Creates an evaluator; each instance has its own function table, caches and clock. */
export function createJmespath(options: JmespathOptions): Jmespath {
  const ctx: FunctionContext = {
    now: () => new Date(options.clock.now()),
    maxStringLength: options.maxStringLength ?? DEFAULT_MAX_STRING,
    maxArrayLength: options.maxArrayLength ?? DEFAULT_MAX_ARRAY,
  };
  // The meter of the search in progress (searches are synchronous: at most one at a time).
  let meter: JmespathMeter | undefined;
  const tick = (units: number): void => {
    if (meter !== undefined) meter.charge("jmespathSteps", units);
  };
  const InterpreterClass = TreeInterpreter.constructor as new () => Interpreter;
  const interpreter = new InterpreterClass();
  const runtime = interpreter.runtime;
  const defs = kyvernoFunctions();
  for (const def of defs) {
    const signature: InputSignature[] = def.args.map((a: ArgSpec) => ({
      types: a.types.map((t) => TYPE_IDS[t]),
      ...(a.optional === true ? { optional: true } : {}),
      ...(a.variadic === true ? { variadic: true } : {}),
    }));
    const fn: RuntimeFunction = (args) => {
      if (meter !== undefined) meter.charge("jmespathSteps", callUnits(args));
      return def.call(args as JsonValue[], ctx);
    };
    const registered = runtime.register(def.name, fn, signature, { override: true });
    if (!registered.success) throw new Error(registered.message);
  }

  // An expression is parsed and planned once: its AST, its plan (closures; undefined when it uses a
  // node type plans do not cover, then the interpreter runs it) and whether its result needs a size
  // check. Two generations approximate an LRU without reordering a Map on every hit: hits in the old
  // generation move to the young one, and a full young generation replaces the old one.
  const callFunction: FunctionCaller = (name, args) => runtime.callFunction(name, args as JsonValue[]);
  let young = new Map<string, Parsed | string>();
  let old = new Map<string, Parsed | string>();
  const remember = (expression: string, parsed: Parsed | string): void => {
    if (young.size >= CACHE_SIZE) {
      old = young;
      young = new Map();
    }
    young.set(expression, parsed);
  };
  const parse = (expression: string): Parsed | string => {
    const hit = young.get(expression);
    if (hit !== undefined) return hit;
    const older = old.get(expression);
    if (older !== undefined) {
      remember(expression, older);
      return older;
    }
    const cached = expression.length <= MAX_CACHED_EXPRESSION_LENGTH;
    let parsed: Parsed | string;
    try {
      const ast = compile(expression);
      // Planning pays off from the second search; expressions too long to cache are searched once.
      const plan = cached ? planExpression(ast, callFunction, tick) : undefined;
      parsed = { ast, plan, bounded: cannotGrow(ast) };
    } catch (thrown) {
      parsed = messageOf(thrown);
    }
    if (cached) remember(expression, parsed);
    return parsed;
  };
  const known = (name: string) => runtime.isRegistered(name);

  const functionList = () => {
    const custom = new Map(defs.map((d) => [d.name, d]));
    return Object.entries(runtime._functionTable)
      .map(([name, entry]) => {
        const def = custom.get(name);
        if (def !== undefined) {
          return {
            name,
            signature: signatureText(name, def.args),
            returnType: def.returns,
            description: def.description,
          };
        }
        const args = entry._signature.map((s) => ({
          ...s,
          types: s.types.map((t) => TYPE_NAMES[t] ?? "any"),
        }));
        const [returnType, description] = BUILTIN_DESCRIPTIONS[name] ?? ["any", ""];
        return { name, signature: signatureText(name, args), returnType, description };
      })
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  };

  return {
    search(expression, data, searchMeter) {
      const outer = meter;
      meter = searchMeter;
      try {
        const parsed = parse(expression);
        if (typeof parsed === "string") return { ok: false, error: parsed };
        const value = (parsed.plan ? parsed.plan(data, data) : interpreter.search(parsed.ast, data)) as
          | JsonValue
          | undefined;
        if (!parsed.bounded) checkResultSize(value, ctx);
        return { ok: true, value: value ?? null };
      } catch (thrown) {
        if (thrown instanceof BudgetExceeded) throw thrown;
        return { ok: false, error: messageOf(thrown) };
      } finally {
        meter = outer;
      }
    },
    check(expression) {
      try {
        const parsed = parse(expression);
        if (typeof parsed === "string") return parsed;
        const name = unknownFunction(parsed.ast, known);
        if (name !== undefined) return `Unknown function: ${name}()`;
        return invalidLiteralRegex(parsed.ast);
      } catch (thrown) {
        return messageOf(thrown);
      }
    },
    functions: functionList,
  };
}
