/** What evaluating a policy needs from the engine, and what it derives once per request from it. */
import type { PolicyException } from "@kyverno-ts/api";
import type { EvaluationLimits } from "../budget/budget.js";
import type { ValueCache } from "../cel/values.js";
import type { ContextLoader, EngineRequest } from "../engine-types.js";
import type { EngineMemo } from "../evaluation/memo.js";
import { acceptsNamespace } from "../exceptions/exceptions.js";
import type { Jmespath } from "../jmespath/index.js";

/** The engine's side of one evaluation: functions, caches, loaders and the request's timestamp. */
export interface PolicyEvalEnv {
  jp: Jmespath;
  memo: EngineMemo;
  exceptionNamespaces: readonly string[];
  loader: ContextLoader;
  now: number;
  namespaceLabels: (namespace: string) => Record<string, string> | undefined;
  /** CEL conversions of request objects (`validate.cel` rules), shared by the policies of a request. */
  celValues: ValueCache;
  /** The work each rule may do. */
  limits: Readonly<EvaluationLimits>;
  /** The request's deadline (`EngineRequest.deadline`), on the `readNow` clock. */
  deadline: number | undefined;
  /** The engine's clock, in milliseconds since the epoch. */
  readNow: () => number;
}

const NO_EXCEPTIONS: readonly PolicyException[] = Object.freeze([]);

/** The request's PolicyExceptions that come from accepted namespaces. */
export function acceptedExceptions(req: EngineRequest, env: PolicyEvalEnv): readonly PolicyException[] {
  const exceptions = req.exceptions;
  if (exceptions === undefined || exceptions.length === 0) return NO_EXCEPTIONS;
  return exceptions.filter((e) => acceptsNamespace(env.exceptionNamespaces, e));
}

/** The top-level names set by `values` (`request.operation` → `request`), which context entries must not overwrite. */
export function presetNames(req: EngineRequest, env: PolicyEvalEnv): ReadonlySet<string> {
  const values = req.values;
  if (values === undefined) return env.memo.noNames;
  const names = new Set<string>();
  for (const k of Object.keys(values)) names.add(k.split(".")[0] ?? k);
  return names;
}
