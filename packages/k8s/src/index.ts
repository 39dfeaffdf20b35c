/**
 * `@kyverno-ts/k8s`: Kubernetes' own semantics, shared by the engine (which adds Kyverno's on top) and
 * the sandbox API server (which must not depend on Kyverno): JSON values, JSON pointers and JSON patch,
 * strategic merge patch of built-in kinds, label selectors, Go durations and the TLS certificates of
 * API servers and webhooks. The public API is this
 * list; nothing is re-exported wholesale.
 */

export {
  formatDuration,
  parseDuration,
  parseDurationExact,
  parseDurationMs,
} from "./duration/go-duration.js";
export { isObject, jsonEqual } from "./json/json.js";
export { appendPointer } from "./json/pointer.js";
export { matchLabelSelector, matchRequirement } from "./labels/label-selector.js";
export { applyJsonPatch, type PatchResult } from "./patch/json-patch.js";
export { MergeError, mergeValue } from "./patch/merge.js";
export {
  fieldSchema,
  itemSchema,
  listStrategy,
  type PatchSchema,
  schemaForKind,
} from "./patch/patch-schema.js";
export { applyStrategicMergePatch } from "./patch/strategic-merge.js";
export {
  type CertificatePair,
  certificateValidity,
  generateCaCertificate,
  issueCertificate,
} from "./tls/certificates.js";
