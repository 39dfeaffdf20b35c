/**
 * Webhook `matchConditions`: CEL expressions over `object`, `oldObject`, `request` and `authorizer`,
 * evaluated with `@bufbuild/cel` and combined as upstream's matchconditions matcher does.
 * Expressions are parsed and planned once per chain and cached.
 */
import {
  type CelInput,
  type CelResult,
  CelScalar,
  celEnv,
  celMethod,
  isCelError,
  mapType,
  parse,
  plan,
} from "@bufbuild/cel";
import { strings } from "@bufbuild/cel/ext";
import type { JsonValue } from "@kyverno-ts/api";

/** Outcome of a webhook's match conditions: call it, skip it, or fail the request with `error`. */
export type ConditionsResult = { matches: boolean; error?: undefined } | { matches: false; error: string };

/** The variables matchConditions see (`request` is the AdmissionRequest without object, oldObject and uid). */
export interface ConditionBindings {
  object: JsonValue | null;
  oldObject: JsonValue | null;
  request: JsonValue;
  /** Group, resource, subresource, namespace and name of the request, for `authorizer.requestResource`. */
  requestResource: { group: string; resource: string; subresource: string; namespace: string; name: string };
}

/** Evaluates match conditions with a plan cache; one per admission chain. */
export interface MatchConditionsEvaluator {
  evaluate(
    conditions: ReadonlyArray<{ name: string; expression: string }>,
    failurePolicy: "Fail" | "Ignore",
    bindings: ConditionBindings,
  ): ConditionsResult;
}

const CHECK = mapType(CelScalar.STRING, CelScalar.DYN);
const KIND = "__kyvernoTsAuthorizer";

function check(kind: string, extra: Record<string, string> = {}): Map<string, CelInput> {
  return new Map<string, CelInput>([[KIND, kind], ...Object.entries(extra)]);
}

/**
 * The authorizer library as a stub: the sandbox does no RBAC, so every `check(verb)` decision is
 * allowed. The builder methods (`group`, `resource`, `subresource`, `namespace`, `name`, `path`,
 * `serviceAccount`) exist so expressions that use them run.
 */
const AUTHORIZER_FUNCS = [
  celMethod("group", CHECK, [CelScalar.STRING], CHECK, () => check("group")),
  celMethod("resource", CHECK, [CelScalar.STRING], CHECK, () => check("resource")),
  celMethod("subresource", CHECK, [CelScalar.STRING], CHECK, () => check("resource")),
  celMethod("namespace", CHECK, [CelScalar.STRING], CHECK, () => check("resource")),
  celMethod("name", CHECK, [CelScalar.STRING], CHECK, () => check("resource")),
  celMethod("path", CHECK, [CelScalar.STRING], CHECK, () => check("path")),
  celMethod("serviceAccount", CHECK, [CelScalar.STRING, CelScalar.STRING], CHECK, () => check("authorizer")),
  celMethod("check", CHECK, [CelScalar.STRING], CHECK, () => check("decision")),
  celMethod("allowed", CHECK, [], CelScalar.BOOL, () => true),
  celMethod("errored", CHECK, [], CelScalar.BOOL, () => false),
  celMethod("reason", CHECK, [], CelScalar.STRING, () => ""),
  celMethod("error", CHECK, [], CelScalar.STRING, () => ""),
];

const VARIABLES = {
  object: CelScalar.DYN,
  oldObject: CelScalar.DYN,
  request: CelScalar.DYN,
  authorizer: CelScalar.DYN,
} as const;

type Program = (ctx: {
  object: CelInput;
  oldObject: CelInput;
  request: CelInput;
  authorizer: CelInput;
}) => CelResult;
type Compiled = { ok: true; program: Program } | { ok: false; error: string };

const CACHE_LIMIT = 1000;

/** JSON to CEL values: whole numbers become CEL ints (as Kubernetes' unstructured conversion does). */
function toCel(value: JsonValue | null): CelInput {
  if (typeof value === "number") return Number.isInteger(value) ? BigInt(value) : value;
  if (Array.isArray(value)) return value.map(toCel);
  if (value !== null && typeof value === "object") {
    const out: { [key: string]: CelInput } = {};
    for (const [k, v] of Object.entries(value)) out[k] = toCel(v);
    return out;
  }
  return value;
}

/** Creates the evaluator; its CEL environment and plan cache live as long as the chain. */
export function createMatchConditionsEvaluator(): MatchConditionsEvaluator {
  const env = celEnv({ variables: VARIABLES, funcs: [...strings, ...AUTHORIZER_FUNCS] });
  const cache = new Map<string, Compiled>();

  function compile(expression: string): Compiled {
    const hit = cache.get(expression);
    if (hit !== undefined) return hit;
    let compiled: Compiled;
    try {
      compiled = { ok: true, program: plan(env, parse(expression)) };
    } catch (err) {
      compiled = {
        ok: false,
        error: `compilation error: ${err instanceof Error ? err.message : String(err)}`,
      };
    }
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(expression, compiled);
    return compiled;
  }

  return {
    evaluate(conditions, failurePolicy, bindings) {
      if (conditions.length === 0) return { matches: true };
      const rr = bindings.requestResource;
      const ctx = {
        object: toCel(bindings.object),
        oldObject: toCel(bindings.oldObject),
        request: toCel(bindings.request),
        authorizer: new Map<string, CelInput>([
          [KIND, "authorizer"],
          ["requestResource", check("resource", rr)],
        ]),
      };
      const errors: string[] = [];
      for (const condition of conditions) {
        const compiled = compile(condition.expression);
        if (!compiled.ok) {
          errors.push(compiled.error);
          continue;
        }
        const result = compiled.program(ctx);
        if (isCelError(result)) {
          errors.push(`expression '${condition.expression}' resulted in error: ${result.message}`);
        } else if (result === false) {
          return { matches: false };
        } else if (result !== true) {
          errors.push(`expression '${condition.expression}' resulted in error: must evaluate to bool`);
        }
      }
      if (errors.length === 0) return { matches: true };
      if (failurePolicy === "Ignore") return { matches: false };
      return { matches: false, error: errors.length === 1 ? (errors[0] ?? "") : `[${errors.join(", ")}]` };
    },
  };
}
