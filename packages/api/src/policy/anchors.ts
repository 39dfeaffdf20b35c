/** Upstream's admission check of anchors in validate patterns. */
import type { Issue, PathSegment } from "../load/errors.js";
import { isObject } from "../schema/dsl.js";
import type { JsonValue } from "./json.js";

const ANCHOR_LIKE = /^.?\(.+\)$/;

/** Anchors a validate pattern may use: condition `()`, existence `^()`, equality `=()`, negation `X()`, global `<()`. */
const VALIDATE_ANCHORS = new Set(["(", "^", "=", "X", "<"]);

/**
 * Checks anchors in a validate pattern as upstream does at admission: a key that looks like an
 * anchor must be a supported one, an existence anchor `^(key)` needs a non-empty list, arrays in
 * a pattern must not be empty, and an array whose first item is an object holds only objects.
 */
export function patternIssues(pattern: JsonValue, path: readonly PathSegment[]): Issue[] {
  if (Array.isArray(pattern)) {
    if (pattern.length === 0)
      return [{ code: "invalid-value", path, message: "an array in a pattern must not be empty" }];
    if (!isObject(pattern[0])) return [];
    return pattern.flatMap((item, i) =>
      isObject(item)
        ? patternIssues(item, [...path, i])
        : [
            {
              code: "wrong-type" as const,
              path: [...path, i],
              message: "expected object like the first item of the list",
            },
          ],
    );
  }
  if (!isObject(pattern)) return [];
  const issues: Issue[] = [];
  for (const [key, value] of Object.entries(pattern)) {
    const at = [...path, key];
    if (ANCHOR_LIKE.test(key)) {
      const modifier = key.startsWith("(") ? "(" : key.charAt(0);
      if (!VALIDATE_ANCHORS.has(modifier)) {
        issues.push({
          code: "invalid-value",
          path: at,
          message: `unsupported anchor ${JSON.stringify(key)} in a validate pattern`,
        });
        continue;
      }
      if (modifier === "^" && (!Array.isArray(value) || value.length === 0)) {
        issues.push({
          code: "invalid-value",
          path: at,
          message: "an existence anchor needs a non-empty list",
        });
        continue;
      }
    }
    issues.push(...patternIssues(value, at));
  }
  return issues;
}
