/** Upstream's admission check of `mutate.patchesJson6902`. */

import type { Issue, PathSegment } from "../load/errors.js";
import { parseDocuments } from "../load/parse.js";
import { isObject } from "../schema/dsl.js";

const VARIABLE = /\{\{(?:\{[^{}]*\}|[^{}])*\}\}/g;

/**
 * Checks a JSON patch written as a YAML string: it must be a list of operations whose `path` starts
 * with `/`. Variables are replaced by a placeholder first, as upstream does.
 */
export function jsonPatchIssues(patch: string, path: readonly PathSegment[]): Issue[] {
  const parsed = parseDocuments(patch.replace(VARIABLE, "kyvernojsonpatchvariable"), "patchesJson6902");
  const first = parsed.errors[0];
  if (first !== undefined)
    return [{ code: "invalid-value", path, message: `not a valid JSON patch: ${first.message}` }];
  const ops = parsed.documents[0]?.value ?? [];
  if (!Array.isArray(ops))
    return [{ code: "invalid-value", path, message: "a JSON patch must be a list of operations" }];
  const issues: Issue[] = [];
  ops.forEach((op, i) => {
    const p = isObject(op) ? op.path : undefined;
    if (typeof p !== "string")
      issues.push({ code: "invalid-value", path, message: `operation ${i}: missing "path"` });
    else if (!p.startsWith("/"))
      issues.push({
        code: "invalid-value",
        path,
        message: `operation ${i}: path ${JSON.stringify(p)} must begin with a forward slash`,
      });
  });
  return issues;
}
