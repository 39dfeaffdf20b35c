import type { JsonValue } from "@kyverno-ts/api";

/** Who sent a request, as resolved from the bearer token (and echoed in AdmissionReviews). */
export interface RequestUser {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

/** Everything the admission chain needs to know about one write request (kube-apiserver's admission.Attributes). */
export interface AdmissionAttributes {
  operation: "CREATE" | "UPDATE" | "DELETE" | "CONNECT";
  /** Group/version/kind of the object and the resource/subresource addressed. */
  kind: { group: string; version: string; kind: string };
  resource: { group: string; version: string; resource: string };
  subResource: string;
  /** Whether the resource is namespaced (for webhook rule `scope`). */
  namespaced: boolean;
  namespace: string;
  name: string;
  /** The new object (CREATE/UPDATE), null for DELETE. */
  object: JsonValue | null;
  /** The existing object (UPDATE/DELETE), null for CREATE. */
  oldObject: JsonValue | null;
  /** Create/Update/Delete options object as kube-apiserver sends it (e.g. `{kind: "CreateOptions", apiVersion: "meta.k8s.io/v1"}`). */
  options: JsonValue | null;
  dryRun: boolean;
  user: RequestUser;
  /** Labels of the object's namespace, for webhook `namespaceSelector` (the Namespace's own labels for a Namespace). */
  namespaceLabels: Record<string, string>;
}

/** A Kubernetes `Status` failure (the shape the API server returns to clients). */
export interface StatusError {
  code: number;
  reason: string;
  message: string;
  details?: JsonValue;
}

/** Outcome of running the admission chain on one request. */
export type AdmissionResult =
  | { allowed: true; /** The object after mutating webhooks (unchanged when none patched it). */ object: JsonValue | null; warnings: string[]; auditAnnotations: Record<string, string> }
  | { allowed: false; status: StatusError; warnings: string[] };

/**
 * The admission chain the API server calls on create, update, delete (and connect): mutating webhooks
 * (with reinvocation), then validating webhooks, as kube-apiserver does. It reads the current
 * Mutating/ValidatingWebhookConfigurations from `WebhookSource` on every request.
 */
export interface AdmissionChain {
  admit(attrs: AdmissionAttributes): Promise<AdmissionResult>;
}

/** Read access to the stored webhook configurations (so the chain always sees the latest objects). */
export interface WebhookSource {
  mutating(): JsonValue[];
  validating(): JsonValue[];
}
