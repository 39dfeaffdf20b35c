/** Kyverno validate patterns: anchors, wildcards, operators, ranges, quantities and durations. */
export { type AnchorKind, type ParsedKey, parseAnchor } from "./anchor.js";
export { type CompiledPattern, compilePattern } from "./compile.js";
export { type PatternResult, validateCompiled, validatePattern } from "./validate-pattern.js";
