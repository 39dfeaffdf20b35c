/** Mutate patch primitives: strategic merge with Kyverno anchors, RFC 6902 apply, parse and diff. */
export { diffJson6902 } from "./diff.js";
export { applyJson6902, type Json6902Options, parseJson6902 } from "./json6902.js";
export {
  applyStrategicMerge,
  type SkippedPatch,
  type StrategicMergeOptions,
} from "./strategic-merge.js";
