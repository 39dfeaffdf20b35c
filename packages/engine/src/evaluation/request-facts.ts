/**
 * What match/exclude, the context and the responses need to know about a request: its kind, the
 * object's reference, its namespace labels and the request matched against. All of it is the same for
 * every policy of one request (a namespaced Policy only adds its namespace), so with a request cache
 * it is computed once per request, not once per policy.
 */
import type { KubeObject } from "@kyverno-ts/api";
import type { EngineRequest } from "../engine-types.js";
import { type MatchRequest, resourceGvk } from "../match/index.js";
import type { ResourceRef } from "../response/types.js";
import {
  type CachedFacts,
  cacheState,
  type NamespaceLabelLookup,
  type RequestFacts,
} from "./request-cache.js";

/** The reference of the resource a request is about (the old object on DELETE). */
export function resourceRef(req: EngineRequest): ResourceRef {
  const obj = req.operation === "DELETE" ? (req.oldResource ?? req.resource) : req.resource;
  return {
    apiVersion: obj.apiVersion ?? "",
    kind: obj.kind ?? "",
    name: obj.metadata?.name ?? "",
    namespace: obj.metadata?.namespace ?? "",
    uid: typeof obj.metadata?.uid === "string" ? obj.metadata.uid : "",
  };
}

/** A fresh copy of a reference (responses never share one). */
export function copyRef(ref: ResourceRef): ResourceRef {
  return {
    apiVersion: ref.apiVersion,
    kind: ref.kind,
    name: ref.name,
    namespace: ref.namespace,
    uid: ref.uid,
  };
}

/** Computes the facts of a request whose resource reference is `resource`. */
export function computeFacts(
  req: EngineRequest,
  lookup: NamespaceLabelLookup,
  resource: ResourceRef,
): RequestFacts {
  const subject: KubeObject = req.operation === "DELETE" ? (req.oldResource ?? req.resource) : req.resource;
  const subresource = req.subresource ?? "";
  const requestKind = req.requestKind;
  const gvk = requestKind
    ? { group: requestKind.group, version: requestKind.version, kind: requestKind.kind, subresource }
    : resourceGvk(subject);
  // A Namespace has no namespace labels: upstream never applies namespaceSelector to it.
  const namespaceLabels =
    resource.kind === "Namespace"
      ? undefined
      : (req.namespaceLabels ?? (resource.namespace ? lookup(resource.namespace) : undefined));
  const matchReq: MatchRequest = {
    resource: subject,
    kind: gvk.kind,
    group: gvk.group,
    version: gvk.version,
    subresource,
    operation: req.operation ?? "CREATE",
  };
  if (namespaceLabels) matchReq.namespaceLabels = namespaceLabels;
  if (req.userInfo) matchReq.userInfo = req.userInfo;
  if (req.roles) matchReq.roles = req.roles;
  if (req.clusterRoles) matchReq.clusterRoles = req.clusterRoles;
  return { gvk, namespaceLabels, matchReq, resource };
}

/** The request a policy matches against: the shared one, plus the namespace of a namespaced Policy. */
export function matchRequestFor(facts: RequestFacts, policyNamespace: string | undefined): MatchRequest {
  if (policyNamespace === undefined) return facts.matchReq;
  return { ...facts.matchReq, policyNamespace };
}

function sameRequest(c: CachedFacts, req: EngineRequest, lookup: NamespaceLabelLookup): boolean {
  return (
    c.resource === req.resource &&
    c.oldResource === req.oldResource &&
    c.operation === req.operation &&
    c.subresource === req.subresource &&
    c.requestKind === req.requestKind &&
    c.namespaceLabels === req.namespaceLabels &&
    c.userInfo === req.userInfo &&
    c.roles === req.roles &&
    c.clusterRoles === req.clusterRoles &&
    c.lookup === lookup
  );
}

/**
 * The facts of `req`: from its request cache when they were computed there for the same request
 * fields, else computed (and remembered when `req` has a cache).
 */
export function requestFactsOf(req: EngineRequest, lookup: NamespaceLabelLookup): RequestFacts {
  const state = cacheState(req);
  const known = state?.facts;
  if (known !== undefined && sameRequest(known, req, lookup)) return known.facts;
  const facts = computeFacts(req, lookup, resourceRef(req));
  if (state !== undefined)
    state.facts = {
      resource: req.resource,
      oldResource: req.oldResource,
      operation: req.operation,
      subresource: req.subresource,
      requestKind: req.requestKind,
      namespaceLabels: req.namespaceLabels,
      userInfo: req.userInfo,
      roles: req.roles,
      clusterRoles: req.clusterRoles,
      lookup,
      facts,
    };
  return facts;
}
