/** Kyverno validate patterns: anchors, wildcards, operators, ranges, quantities and durations. */
export { type AnchorKind, type ParsedKey, parseAnchor } from "./anchor.js";
export { type PatternResult, validatePattern } from "./validate-pattern.js";
