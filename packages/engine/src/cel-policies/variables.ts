/**
 * The bindings every expression of a CEL policy (or `validate.cel` rule) sees: the request's, `params`,
 * `exceptions` and the lazy `variables`, each variable evaluated on first use.
 */
import type { CelValue } from "@bufbuild/cel";
import type { CelProgram } from "../cel/env.js";
import type { CelSession } from "../cel/session.js";
import { DirectCelMap } from "../cel/values.js";
import type { RequestBindings } from "./request.js";

/**
 * The `variables` binding: each variable evaluated on first use, with the same bindings (so
 * variables may reference the ones before them), then remembered. A failing variable fails the
 * expressions that read it.
 */
class LazyVariables extends DirectCelMap implements ReadonlyMap<string, CelValue> {
  private cache: Map<string, CelValue> | undefined;
  private pending: string | string[] | undefined;
  bindings: Record<string, CelValue> = {};

  constructor(
    private readonly programs: ReadonlyMap<string, CelProgram>,
    private readonly session: CelSession,
  ) {
    super();
  }

  get size(): number {
    return this.programs.size;
  }

  /** As the library's maps: a variable that is null is not there (evaluates it). */
  has(key: string): boolean {
    return this.get(key) != null;
  }

  get(key: string): CelValue | undefined {
    const known = this.cache?.get(key);
    if (known !== undefined) return known;
    const program = this.programs.get(key);
    if (program === undefined) return undefined;
    const outer = this.pending;
    if (outer === key || (Array.isArray(outer) && outer.includes(key)))
      throw new Error(`variable ${key} references itself`);
    this.pending = outer === undefined ? key : [...(Array.isArray(outer) ? outer : [outer]), key];
    try {
      const out = program.evaluate(this.bindings, this.session);
      if (!out.ok) throw new Error(`composited variable "${key}" fails to be evaluated: ${out.error}`);
      if (this.cache === undefined) this.cache = new Map();
      this.cache.set(key, out.value);
      return out.value;
    } finally {
      this.pending = outer;
    }
  }

  forEach(fn: (value: CelValue, key: string, map: ReadonlyMap<string, CelValue>) => void): void {
    for (const key of this.programs.keys()) fn(this.get(key) as CelValue, key, this);
  }

  *entries(): MapIterator<[string, CelValue]> {
    for (const key of this.programs.keys()) yield [key, this.get(key) as CelValue];
  }

  keys(): MapIterator<string> {
    return this.programs.keys();
  }

  *values(): MapIterator<CelValue> {
    for (const key of this.programs.keys()) yield this.get(key) as CelValue;
  }

  [Symbol.iterator](): MapIterator<[string, CelValue]> {
    return this.entries();
  }
}

/** Adds the lazy `variables` binding to `base`; the result is what every expression of the block sees. */
export function withVariables(
  base: Readonly<Record<string, CelValue>>,
  variables: ReadonlyMap<string, CelProgram>,
  session: CelSession,
): Record<string, CelValue> {
  const lazy = new LazyVariables(variables, session);
  const bindings: Record<string, CelValue> = {
    ...base,
    variables: lazy.asCelMap(),
  };
  lazy.bindings = bindings;
  return bindings;
}

/**
 * The bindings of a policy's expressions: the request's, `params`, `exceptions` and the lazy
 * `variables` (one object literal, so every policy's bindings have the same shape).
 */
export function policyBindings(
  request: RequestBindings,
  params: CelValue,
  exceptions: CelValue,
  variables: ReadonlyMap<string, CelProgram>,
  session: CelSession,
): Record<string, CelValue> {
  const lazy = new LazyVariables(variables, session);
  const bindings: Record<string, CelValue> = {
    object: request.object,
    oldObject: request.oldObject,
    request: request.request,
    namespaceObject: request.namespaceObject,
    authorizer: request.authorizer,
    params,
    exceptions,
    variables: lazy.asCelMap(),
  };
  lazy.bindings = bindings;
  return bindings;
}
