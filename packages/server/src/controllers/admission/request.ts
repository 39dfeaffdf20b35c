/** From an AdmissionReview request to what the engine, the filters and the metrics need. */
import type { KubeObject, PolicyException } from "@kyverno-ts/api";
import { createRequestCache, type EngineRequest } from "@kyverno-ts/engine";
import { builtinKindOf } from "@kyverno-ts/kube";
import type { AdmissionRequest, ParsedReview } from "./review.js";

/** The object a request is about (the old object on DELETE), as messages, filters and metrics name it. */
export interface RequestSubject {
  kind: string;
  namespace: string;
  name: string;
  /** The object evaluated: the new object, or the old one on DELETE. */
  object: KubeObject;
}

/**
 * The kind of a resource (plural) of an apiVersion (`apps/v1`, `deployments` → `Deployment`): built-in
 * kinds from a table, others from the cluster's discovery; undefined when unknown.
 */
export type ResourceKindOf = (apiVersion: string, resource: string) => string | undefined;

/** Built-in kinds only: standalone mode, where there is no cluster to ask. */
export const builtinResourceKind: ResourceKindOf = (apiVersion, resource) =>
  builtinKindOf(apiVersion.includes("/") ? apiVersion.slice(0, apiVersion.lastIndexOf("/")) : "", resource);

/**
 * The kind a subresource request is matched by, as upstream: the kind of the addressed resource
 * (`apps/v1 deployments` → `Deployment`, so `kubectl scale` matches `Deployment/scale` although it
 * carries an `autoscaling/v1 Scale`). Undefined for requests on a main resource, and when the
 * resource's kind is unknown (the object's own kind is used then).
 */
export function subresourceRequestKind(
  request: AdmissionRequest,
  kindOf: ResourceKindOf,
): { group: string; version: string; kind: string } | undefined {
  const resource = request.requestResource ?? request.resource;
  if (!request.subResource || resource === undefined) return undefined;
  const apiVersion = resource.group === "" ? resource.version : `${resource.group}/${resource.version}`;
  const kind = kindOf(apiVersion, resource.resource);
  return kind === undefined ? undefined : { group: resource.group, version: resource.version, kind };
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
  kindOf: ResourceKindOf = builtinResourceKind,
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
  if (request.subResource) {
    req.subresource = request.subResource;
    const requestKind = subresourceRequestKind(request, kindOf);
    if (requestKind !== undefined) req.requestKind = requestKind;
  }
  if (request.dryRun === true) req.dryRun = true;
  // `request.namespace` / `request.name` of an options object (CONNECT) come from the request.
  if (request.namespace) req.requestNamespace = request.namespace;
  if (request.name) req.requestName = request.name;
  if (roles) {
    req.roles = roles.roles;
    req.clusterRoles = roles.clusterRoles;
  }
  return req;
}
