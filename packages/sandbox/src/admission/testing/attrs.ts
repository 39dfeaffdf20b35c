/**
 * Test-only: AdmissionAttributes and webhook configuration builders.
 * Not part of the package API (imported by tests beside the code only).
 */
import type { JsonObject, JsonValue } from "@kyverno-ts/api";
import type { AdmissionAttributes } from "../types.js";

/** A Pod CREATE in namespace `default` by `alice`, with `overrides` applied. */
export function podAttrs(overrides: Partial<AdmissionAttributes> = {}): AdmissionAttributes {
  const object: JsonObject = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "nginx", namespace: "default", labels: { app: "nginx" } },
    spec: { containers: [{ name: "nginx", image: "nginx:1.27" }] },
  };
  return {
    operation: "CREATE",
    kind: { group: "", version: "v1", kind: "Pod" },
    resource: { group: "", version: "v1", resource: "pods" },
    subResource: "",
    namespaced: true,
    namespace: "default",
    name: "nginx",
    object,
    oldObject: null,
    options: { kind: "CreateOptions", apiVersion: "meta.k8s.io/v1" },
    dryRun: false,
    user: { username: "alice", uid: "u-1", groups: ["system:authenticated"] },
    namespaceLabels: { "kubernetes.io/metadata.name": "default" },
    ...overrides,
  };
}

/** A webhook entry with an all-Pod-operations rule, `None` side effects and v1 reviews. */
export function webhook(name: string, clientConfig: JsonObject, extra: JsonObject = {}): JsonObject {
  return {
    name,
    clientConfig,
    rules: [{ operations: ["*"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"], scope: "*" }],
    sideEffects: "None",
    admissionReviewVersions: ["v1"],
    timeoutSeconds: 2,
    ...extra,
  };
}

/** A Mutating/ValidatingWebhookConfiguration object. */
export function configuration(
  kind: "Mutating" | "Validating",
  name: string,
  webhooks: JsonValue[],
): JsonObject {
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: `${kind}WebhookConfiguration`,
    metadata: { name },
    webhooks,
  };
}
