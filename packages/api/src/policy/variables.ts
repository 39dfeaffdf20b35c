/**
 * Where `{{ }}` variables sit in a policy, and which ones upstream's admission check allows: the
 * building blocks of the variable checks (`checks-variables.ts`).
 */
import type { PathSegment } from "../load/errors.js";
import { isObject } from "../schema/dsl.js";
import type { JsonValue } from "./json.js";

/** Upstream's `RegexVariables`: an unescaped `{{ … }}`, one level of `{ }` allowed inside. */
const VARIABLE = /(^|[^\\])(\{\{(?:\{[^{}]*\}|[^{}])*\}\})/g;

/** One `{{ … }}` occurrence: the string it sits in and its text. */
export interface VariableUse {
  /** Path of the string holding it. */
  readonly path: readonly PathSegment[];
  /** The whole variable with its braces, as written (`{{ request.userInfo.username }}`). */
  readonly text: string;
  /** The JMESPath query inside, trimmed, without the shallow-substitution `-`. */
  readonly query: string;
}

/**
 * The variables of one string, innermost first: a variable nested in another's query
 * (`{{ map."{{ request.name }}" }}`) is read, then replaced by a placeholder as substitution would,
 * so the outer one is read too.
 */
export function variablesOf(value: string): string[] {
  const found: string[] = [];
  let rest = value;
  for (;;) {
    const round = [...rest.matchAll(VARIABLE)].map((m) => m[2] ?? "");
    if (round.length === 0) return found;
    found.push(...round);
    rest = rest.replace(VARIABLE, (_m, prefix: string) => `${prefix}null`);
  }
}

/** The query of a `{{ … }}` text. */
export function queryOf(text: string): string {
  const inner = text.slice(2, -2).trim();
  return inner.startsWith("-") ? inner.slice(1).trim() : inner;
}

/** Every variable in the string values of `value` (object keys are not substituted, so not read). */
export function variableUses(value: JsonValue | undefined, path: readonly PathSegment[]): VariableUse[] {
  const out: VariableUse[] = [];
  const walk = (v: JsonValue | undefined, at: readonly PathSegment[]): void => {
    if (typeof v === "string") {
      if (!v.includes("{{")) return;
      for (const text of variablesOf(v)) out.push({ path: at, text, query: queryOf(text) });
    } else if (Array.isArray(v)) {
      v.forEach((item, i) => {
        walk(item, [...at, i]);
      });
    } else if (isObject(v)) {
      for (const [k, item] of Object.entries(v)) walk(item, [...at, k]);
    }
  };
  walk(value, path);
  return out;
}

/** True when `value` holds an unescaped `{{ … }}` anywhere in its strings. */
export function hasVariable(value: JsonValue | undefined): boolean {
  return variableUses(value, []).length > 0;
}

/**
 * Variables that read the admission request's requester, which a background scan does not have
 * (upstream's `ForbiddenUserVariables`, matched against the whole `{{ … }}` text: a field named
 * `serviceAccountName` inside an object path is fine).
 */
const REQUESTER_VARIABLES: readonly RegExp[] = [
  /[^.]serviceAccountName/,
  /[^.]serviceAccountNamespace/,
  /request.userInfo/,
  /request.roles/,
  /request.clusterRoles/,
];

/** Whether a `{{ … }}` text reads the requester (user info, roles, service account). */
export function readsRequester(text: string): boolean {
  return REQUESTER_VARIABLES.some((re) => re.test(text));
}

/**
 * Upstream's allow-lists of variable queries, by whether the policy runs in the background and whether
 * the variable sits in a mutate-existing rule (where `target.` reads the target). Unanchored, as
 * upstream's: a query mentioning `request` anywhere passes, and so does any function call.
 */
const ALLOWED = {
  admission:
    /request|serviceAccountName|serviceAccountNamespace|element|elementIndex|@|images|image|([a-z_0-9]+\()[^{}]/,
  background: /request\.|element|elementIndex|@|images|images\.|image\.|([a-z_0-9]+\()[^{}]/,
  admissionTarget:
    /request\.|serviceAccountName|serviceAccountNamespace|element|elementIndex|@|images|images\.|image\.|target\.|([a-z_0-9]+\()[^{}]/,
  backgroundTarget: /request\.|element|elementIndex|@|images|images\.|image\.|target\.|([a-z_0-9]+\()[^{}]/,
} as const;

/** The allow-list for a place in a policy. */
export function allowedVariables(background: boolean, target: boolean): RegExp {
  if (target) return background ? ALLOWED.backgroundTarget : ALLOWED.admissionTarget;
  return background ? ALLOWED.background : ALLOWED.admission;
}

/** Glob match with `*` and `?`, as upstream's `wildcard.Match`. */
function globMatch(pattern: string, value: string): boolean {
  const re = new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, "\\$&")
      .replace(/\*/g, ".*")
      .replace(/\?/g, ".")}$`,
    "s",
  );
  return re.test(value);
}

/**
 * Whether a variable query is allowed: it matches the allow-list, or reads a context entry the rule
 * declares (`names`, glob patterns such as `cm.data.*`). Quotes are dropped first, as upstream does
 * for names with dashes (`{{ "my-map".data.key }}`).
 */
export function variableAllowed(query: string, allowed: RegExp, names: readonly string[]): boolean {
  const q = query.replaceAll('"', "");
  return allowed.test(q) || names.some((n) => globMatch(n, q));
}
