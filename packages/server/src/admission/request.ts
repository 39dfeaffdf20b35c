/** From an AdmissionReview request to what the engine, the filters and the metrics need. */
import type { KubeObject, PolicyException } from "@kyverno-ts/api";
import { createRequestCache, type EngineRequest } from "@kyverno-ts/engine";
import type { ParsedReview } from "./review.js";

/** The object a request is about (the old object on DELETE), as messages, filters and metrics name it. */
export interface RequestSubject {
  kind: string;
  namespace: string;
  name: string;
  /** The object evaluated: the new object, or the old one on DELETE. */
  object: KubeObject;
}

/** RBAC roles of a requester, resolved by the caller (from RBAC informers in a cluster). */
export interface RequesterRoles {
  roles: string[];
  clusterRoles: string[];
}

/** Identifies the object of a review; kind and namespace fall back to the request's fields. */
export function requestSubject(review: ParsedReview): RequestSubject {
  const { request } = review;
  const object = (request.operation === "DELETE" ? review.oldObject : review.object) ?? {};
  const kind = typeof object.kind === "string" && object.kind !== "" ? object.kind : request.kind.kind;
  const namespace = object.metadata?.namespace ?? request.namespace ?? "";
  const name = object.metadata?.name ?? request.name ?? "";
  return { kind, namespace, name, object };
}

/**
 * The engine request of a review: the object (old object on DELETE), the old object on UPDATE, the
 * operation, user, roles, subresource, dryRun and the PolicyExceptions to consider, with a fresh
 * request cache: the policies evaluated for this review share its context, its plain lookups and one
 * timestamp.
 */
export function engineRequest(
  review: ParsedReview,
  subject: RequestSubject,
  roles: RequesterRoles | undefined,
  exceptions: readonly PolicyException[],
): EngineRequest {
  const { request } = review;
  const req: EngineRequest = {
    resource: subject.object,
    operation: request.operation,
    exceptions,
    cache: createRequestCache(),
  };
  if (review.oldObject) req.oldResource = review.oldObject;
  if (request.userInfo) req.userInfo = request.userInfo;
  if (request.subResource) req.subresource = request.subResource;
  if (request.dryRun === true) req.dryRun = true;
  if (roles) {
    req.roles = roles.roles;
    req.clusterRoles = roles.clusterRoles;
  }
  return req;
}
