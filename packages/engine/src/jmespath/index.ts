/**
 * JMESPath (Community dialect) with Kyverno's custom functions. The only entry of this folder.
 */

/** Options of `createJmespath`: the injected clock and the string/array size limits. */
/** Outcome of `search`: `{ ok: true, value }` or `{ ok: false, error }`; errors are values, never thrown. */
/** The evaluator: `search` (cached parse, never throws), `check` (parse only), `functions` (for `jp function`). */
export type { Jmespath, JmespathMeter, JmespathOptions, JmespathResult } from "./jmespath.js";
/** Creates an evaluator with its own function table and AST cache; time functions read `options.clock`. */
export { createJmespath } from "./jmespath.js";
