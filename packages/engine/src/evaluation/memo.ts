import type { JsonValue } from "@kyverno-ts/api";
import { type KindSelector, parseKindList } from "../match/index.js";
import { parseJson6902 } from "../mutate/index.js";
import { type CompiledPattern, compilePattern } from "../pattern/index.js";
import { type BlockPaths, blockPaths } from "../validate/block-paths.js";
import { type FoundVariable, findVariable } from "../variables/substitute.js";

/**
 * Per-engine caches of facts derived from policy documents, keyed by object identity (strings by
 * text, in bounded caches). Policy documents are immutable once compiled, so entries never go stale,
 * and the WeakMaps let them go with the policies.
 */
export interface EngineMemo {
  /** False when the document holds no `{{ }}` anywhere, so substitution can return it as is. */
  containsVariables(doc: object): boolean;
  /** `!containsVariables(doc)`, as one function for the life of the memo (for `substituteAll`). */
  readonly holdsNoVariables: (doc: object) => boolean;
  /**
   * The compiled form of a pattern taken from a policy document (not one built by substitution,
   * which would only fill the cache with one-off entries: compile those with `compilePattern`).
   * Maps and lists are remembered by identity, strings by text (a bounded number of them).
   */
  pattern(doc: JsonValue): CompiledPattern;
  /** The parsed selectors of a `kinds` list from a policy document (a `KindListParser`). */
  kindSelectors(kinds: readonly string[]): readonly (KindSelector | undefined)[];
  /**
   * `patchesJson6902` of a policy document (`owner` is the mutate block or foreach entry holding it),
   * parsed once; the operations are only read when applied.
   */
  json6902(owner: object, text: string): ReturnType<typeof parseJson6902>;
  /**
   * The first variable of a string, as `findVariable` finds it, remembered for the strings met most
   * recently (policy strings recur on every request; a bounded cache, so data strings do no harm).
   */
  findVariable(s: string): FoundVariable | undefined;
  /** An empty name set, for requests that preset no values (never modified). */
  readonly noNames: ReadonlySet<string>;
  /** The pointers of a rule's `validate` block and of its parts, shared by every rule (filled as met). */
  readonly validatePaths: BlockPaths;
  /** The pointers of a rule's own `context` and `preconditions` (`/context`, `/preconditions`). */
  readonly rulePaths: BlockPaths;
}

const VARIABLE_CACHE_SIZE = 1000;
const SCALAR_CACHE_SIZE = 1000;

function deepHasVariables(doc: JsonValue): boolean {
  if (typeof doc === "string") return doc.includes("{{");
  if (Array.isArray(doc)) return doc.some(deepHasVariables);
  if (doc !== null && typeof doc === "object") {
    for (const [k, v] of Object.entries(doc)) if (k.includes("{{") || deepHasVariables(v)) return true;
  }
  return false;
}

/** Creates the caches of one engine instance. */
export function createEngineMemo(): EngineMemo {
  const variables = new WeakMap<object, boolean>();
  const patterns = new WeakMap<object, CompiledPattern>();
  const scalars = new Map<string, CompiledPattern>();
  const kindLists = new WeakMap<readonly string[], readonly (KindSelector | undefined)[]>();
  const patches = new WeakMap<object, { text: string; parsed: ReturnType<typeof parseJson6902> }>();
  // Two generations of found variables: a full young generation becomes the old one, so the cache
  // holds at most 2 × VARIABLE_CACHE_SIZE strings and keeps the ones in use.
  let young = new Map<string, FoundVariable | null>();
  let old = new Map<string, FoundVariable | null>();
  const remember = (s: string, found: FoundVariable | null): void => {
    if (young.size >= VARIABLE_CACHE_SIZE) {
      old = young;
      young = new Map();
    }
    young.set(s, found);
  };
  const containsVariables = (doc: object): boolean => {
    let v = variables.get(doc);
    if (v === undefined) {
      v = deepHasVariables(doc as JsonValue);
      variables.set(doc, v);
    }
    return v;
  };
  return {
    noNames: new Set(),
    validatePaths: blockPaths("/validate"),
    rulePaths: blockPaths(""),
    holdsNoVariables: (doc) => !containsVariables(doc),
    containsVariables,
    findVariable(s) {
      let found = young.get(s);
      if (found === undefined) {
        found = old.get(s);
        if (found === undefined) found = findVariable(s) ?? null;
        remember(s, found);
      }
      return found ?? undefined;
    },
    kindSelectors(kinds) {
      let parsed = kindLists.get(kinds);
      if (parsed === undefined) {
        parsed = parseKindList(kinds);
        kindLists.set(kinds, parsed);
      }
      return parsed;
    },
    json6902(owner, text) {
      const known = patches.get(owner);
      if (known !== undefined && known.text === text) return known.parsed;
      const parsed = parseJson6902(text);
      patches.set(owner, { text, parsed });
      return parsed;
    },
    pattern(doc) {
      if (typeof doc === "string") {
        // Scalar patterns (the values of anchors in overlays, mostly) are keyed by their text.
        let compiled = scalars.get(doc);
        if (compiled === undefined) {
          compiled = compilePattern(doc);
          if (scalars.size >= SCALAR_CACHE_SIZE) scalars.clear();
          scalars.set(doc, compiled);
        }
        return compiled;
      }
      if (doc === null || typeof doc !== "object") return compilePattern(doc);
      let compiled = patterns.get(doc);
      if (compiled === undefined) {
        compiled = compilePattern(doc);
        patterns.set(doc, compiled);
      }
      return compiled;
    },
  };
}

/** The pattern-bearing parts of a validate block or foreach entry. */
export interface PatternHolder {
  pattern?: JsonValue | undefined;
  anyPattern?: JsonValue[] | undefined;
  foreach?: readonly PatternHolder[] | undefined;
}

/**
 * Compiles, at policy compile time, the patterns of validate blocks (and their foreach entries) that
 * hold no variables, so the first request finds them ready. Patterns with variables are compiled
 * per request after substitution.
 */
export function precompilePatterns(memo: EngineMemo, blocks: readonly PatternHolder[]): void {
  for (const block of blocks) {
    const patterns = [block.pattern, ...(block.anyPattern ?? [])];
    for (const pattern of patterns) {
      if (pattern !== null && typeof pattern === "object" && !memo.containsVariables(pattern))
        memo.pattern(pattern);
    }
    if (block.foreach) precompilePatterns(memo, block.foreach);
  }
}
