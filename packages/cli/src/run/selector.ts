import { matchWildcard } from "@kyverno-ts/engine";
import { InputMessages } from "../output/messages.js";

/** A parsed `--test-case-selector`: wildcard patterns for policy, rule and resource (all default to `*`). */
export interface TestCaseSelector {
  policy: string;
  rule: string;
  resource: string;
}

/** The selector that keeps every test case. */
export const SELECT_ALL: TestCaseSelector = { policy: "*", rule: "*", resource: "*" };

/**
 * Parses `policy=<glob>,rule=<glob>,resource=<glob>` (any subset, any order, spaces allowed), as
 * upstream's `--test-case-selector`. Returns an error message for unknown keys or malformed parts.
 */
export function parseSelector(
  text: string,
): { ok: true; value: TestCaseSelector } | { ok: false; error: string } {
  const selector: TestCaseSelector = { ...SELECT_ALL };
  for (const raw of text.split(",")) {
    const part = raw.trim();
    if (part === "") continue;
    const eq = part.indexOf("=");
    if (eq < 0) return { ok: false, error: InputMessages.invalidSelector(part) };
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key !== "policy" && key !== "rule" && key !== "resource") {
      return {
        ok: false,
        error: InputMessages.invalidSelectorKey(key),
      };
    }
    selector[key] = value === "" ? "*" : value;
  }
  return { ok: true, value: selector };
}

/** True when a (policy, rule, resource) test case is kept; `resource` may be `name` or `ns/name`. */
export function selects(selector: TestCaseSelector, policy: string, rule: string, resource: string): boolean {
  if (!matchWildcard(selector.policy, policy) || !matchWildcard(selector.rule, rule)) return false;
  if (matchWildcard(selector.resource, resource)) return true;
  const slash = resource.lastIndexOf("/");
  return slash >= 0 && matchWildcard(selector.resource, resource.slice(slash + 1));
}
