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
  | {
      allowed: true;
      /** The object after mutating webhooks (unchanged when none patched it). */
      object: JsonValue | null;
      warnings: string[];
      auditAnnotations: Record<string, string>;
    }
  | {
      allowed: false;
      status: StatusError;
      warnings: string[];
      /** Audit annotations recorded before the rejection (webhook-provided and `failed-open`/`mutation` ones). */
      auditAnnotations?: Record<string, string>;
    };

/** Per-request options for `admit` (and the `mutate` / `validate` phases). */
export interface AdmitOptions {
  /**
   * The request deadline in seconds (kube-apiserver's `?timeout=`, default 60): every webhook call is
   * bounded by min(its `timeoutSeconds`, time left), so the whole chain never outlives it.
   */
  timeoutSeconds?: number;
  /** Aborted when the client went away; pending webhook calls fail with `context canceled`. */
  signal?: AbortSignal;
}

/**
 * The admission chain the API server calls on create, update, delete (and connect): mutating webhooks
 * (with reinvocation), then validating webhooks, as kube-apiserver does. It reads the current
 * Mutating/ValidatingWebhookConfigurations from `WebhookSource` on every request.
 */
export interface AdmissionChain {
  admit(attrs: AdmissionAttributes, options?: AdmitOptions): Promise<AdmissionResult>;
}

/**
 * An `AdmissionChain` whose two phases can also be run apart, as kube-apiserver does: mutating admission,
 * then the API server's own validation of the object (422s), then validating admission on the result.
 * `admit` is `mutate` followed by `validate` on the mutated object.
 */
export interface PhasedAdmissionChain extends AdmissionChain {
  /** Mutating webhooks only (with reinvocation); `object` in the result is the mutated object. */
  mutate(attrs: AdmissionAttributes, options?: AdmitOptions): Promise<AdmissionResult>;
  /** Validating webhooks only, called in parallel on `attrs.object`; `object` is returned unchanged. */
  validate(attrs: AdmissionAttributes, options?: AdmitOptions): Promise<AdmissionResult>;
}

/** Read access to the stored webhook configurations (so the chain always sees the latest objects). */
export interface WebhookSource {
  mutating(): JsonValue[];
  validating(): JsonValue[];
}
