/** Telling apart the documents of a mixed file before loading them. */

import type { JsonValue } from "../policy/json.js";
import { isObject } from "../schema/dsl.js";

/**
 * What a document is, from its apiVersion group and kind only (no validation):
 * - `ClusterPolicy` / `Policy` / `PolicyException`: kyverno.io kinds; load with `loadPolicy` / `loadPolicyException`
 *   (any kyverno.io version: the loader reports unsupported versions);
 * - `CelPolicy` / `CelPolicyException`: policies.kyverno.io kinds (ValidatingPolicy, MutatingPolicy, ...);
 * - `AdmissionPolicy`: Kubernetes Validating/MutatingAdmissionPolicy and their bindings;
 * - `Test` / `Values` / `UserInfo`: the CLI's own files (cli.kyverno.io);
 * - `Resource`: any other object with a kind; `Untyped`: an object without kind; `NotAnObject`: a scalar or list.
 */
export type DocumentClass =
  | "ClusterPolicy"
  | "Policy"
  | "PolicyException"
  | "CelPolicy"
  | "CelPolicyException"
  | "AdmissionPolicy"
  | "Test"
  | "Values"
  | "UserInfo"
  | "Resource"
  | "Untyped"
  | "NotAnObject";

const ADMISSION_POLICIES = new Set([
  "ValidatingAdmissionPolicy",
  "ValidatingAdmissionPolicyBinding",
  "MutatingAdmissionPolicy",
  "MutatingAdmissionPolicyBinding",
]);

/** Classifies a parsed document so a caller can route a mixed file to the right loader. */
export function classifyDocument(value: JsonValue): DocumentClass {
  if (!isObject(value)) return "NotAnObject";
  const kind = value.kind;
  if (typeof kind !== "string" || kind === "") return "Untyped";
  const apiVersion = typeof value.apiVersion === "string" ? value.apiVersion : "";
  const group = apiVersion.includes("/") ? apiVersion.slice(0, apiVersion.indexOf("/")) : "";
  switch (group) {
    case "kyverno.io":
      return kind === "ClusterPolicy" || kind === "Policy" || kind === "PolicyException" ? kind : "Resource";
    case "policies.kyverno.io":
      return kind === "PolicyException" ? "CelPolicyException" : "CelPolicy";
    case "admissionregistration.k8s.io":
      return ADMISSION_POLICIES.has(kind) ? "AdmissionPolicy" : "Resource";
    case "cli.kyverno.io":
      if (kind === "Test" || kind === "UserInfo") return kind;
      return kind === "Values" || kind === "Value" ? "Values" : "Resource";
    default:
      return "Resource";
  }
}
