/** `semver_compare(version, range)`; an unparseable version counts as 0.0.0, as upstream ignores the error. */
import { parseRange, parseSemver, ZERO } from "../semver/semver.js";
import { arg, type FunctionDef } from "./context.js";
import { functionError } from "./errors.js";

/** semver_compare. */
export const semverFunctions: readonly FunctionDef[] = [
  {
    name: "semver_compare",
    args: [arg("string"), arg("string")],
    returns: "boolean",
    description: "true when the version satisfies the range ('>1.0.0 <2.0.0', '<1.0.0 || >=3.0.0', '4.1.x')",
    call: (a) => {
      let version = ZERO;
      try {
        version = parseSemver(typeof a[0] === "string" ? a[0] : "");
      } catch {
        // upstream ignores the version's parse error and compares 0.0.0
      }
      try {
        return parseRange(typeof a[1] === "string" ? a[1] : "")(version);
      } catch (thrown) {
        throw functionError("semver_compare", thrown instanceof Error ? thrown.message : String(thrown));
      }
    },
  },
];
