/**
 * What CEL expressions of every policy kind see of a request: `object`, `oldObject`, `request` (the
 * AdmissionRequest) and `namespaceObject`, as Kubernetes' admission policies bind them, converted to
 * CEL values once per request.
 */
import type { CelValue } from "@bufbuild/cel";
import type { JsonValue, KubeObject } from "@kyverno-ts/api";
import { authorizerFor } from "../cel/functions/authz.js";
import { toCelValue, type ValueCache } from "../cel/values.js";
import type { EngineRequest } from "../engine-types.js";
import { resourceGvk } from "../match/index.js";
import { pluralOf } from "./resources.js";

/** The group, version and kind of a request, with its plural resource name. */
export interface RequestTarget {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly resource: string;
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
  readonly operation: string;
  /** The object the request is about: the new one, or the old one on DELETE. */
  readonly subject: KubeObject;
}

/**
 * The most recent targets, by the object they are about: the policies and rules of one request share
 * its target, even when each is handed its own request record (as the classic engine's rules are). A
 * target is reused only when the request fields it was computed from are the same. A few strongly
 * held entries, not a WeakMap: see `createValueCache` for why a long-lived WeakMap keyed by each
 * request's objects makes them outlive the young generation.
 */
const RECENT_TARGETS = 4;
const recentTargets: ({ readonly target: RequestTarget; readonly from: EngineRequest } | undefined)[] =
  new Array(RECENT_TARGETS).fill(undefined);
const recentCursor = { next: 0 };

/** Whether `a` and `b` give the same target for the same object and operation. */
function sameTargetFields(a: EngineRequest, b: EngineRequest): boolean {
  return (
    a === b ||
    ((a.operation ?? "CREATE") === (b.operation ?? "CREATE") &&
      a.requestKind === b.requestKind &&
      a.subresource === b.subresource &&
      a.requestNamespace === b.requestNamespace &&
      a.requestName === b.requestName)
  );
}

/** The request's target, as matchConstraints and the `request` variable see it. */
export function requestTarget(req: EngineRequest): RequestTarget {
  const operation = req.operation ?? "CREATE";
  const subject = operation === "DELETE" ? (req.oldResource ?? req.resource) : req.resource;
  for (const known of recentTargets)
    if (known !== undefined && known.target.subject === subject && sameTargetFields(known.from, req))
      return known.target;
  const target = computeTarget(req, operation, subject);
  recentTargets[recentCursor.next] = { target, from: req };
  recentCursor.next = (recentCursor.next + 1) % RECENT_TARGETS;
  return target;
}

function computeTarget(req: EngineRequest, operation: string, subject: KubeObject): RequestTarget {
  const gvk = req.requestKind ?? resourceGvk(subject);
  return {
    group: gvk.group,
    version: gvk.version,
    kind: gvk.kind,
    resource: pluralOf(gvk.kind),
    subresource: req.subresource ?? "",
    namespace: subject.metadata?.namespace || (req.requestNamespace ?? ""),
    name: subject.metadata?.name || (req.requestName ?? ""),
    operation,
    subject,
  };
}

/** The bindings every expression of a request sees (policy-specific ones are added by the caller). */
export interface RequestBindings {
  object: CelValue;
  oldObject: CelValue;
  request: CelValue;
  namespaceObject: CelValue;
  authorizer: CelValue;
}

function userInfoJson(req: EngineRequest): JsonValue {
  const u = req.userInfo ?? {};
  const out: { [key: string]: JsonValue } = {
    username: u.username ?? "",
    uid: u.uid ?? "",
    groups: u.groups ?? [],
  };
  if (u.extra !== undefined) out.extra = u.extra;
  return out;
}

/** What building the bindings needs beside the request: which names are read, and the conversion cache. */
export interface BindingOptions {
  /** The identifiers the policy's expressions read; the others are bound to null. */
  readonly reads: ReadonlySet<string>;
  readonly values: ValueCache;
}

/**
 * Builds the request bindings; `namespace` is the request namespace's object, when known. Objects
 * are converted through the cache (once per request), and `request` only when an expression reads it.
 */
export function requestBindings(
  req: EngineRequest,
  target: RequestTarget,
  namespace: () => KubeObject | undefined,
  options: BindingOptions,
): RequestBindings {
  const operation = target.operation;
  const object = operation === "DELETE" ? null : (req.resource as unknown as JsonValue);
  const oldObject =
    operation === "CREATE" || operation === "CONNECT"
      ? null
      : ((req.oldResource ?? (operation === "DELETE" ? req.resource : null)) as unknown as JsonValue);
  const { reads, values } = options;
  return {
    object: values.of(object),
    oldObject: reads.has("oldObject") ? values.of(oldObject) : null,
    request: reads.has("request") ? toCelValue(requestJson(req, target, object, oldObject)) : null,
    namespaceObject: reads.has("namespaceObject")
      ? toCelValue((namespace() ?? null) as unknown as JsonValue)
      : null,
    authorizer: reads.has("authorizer")
      ? authorizerFor(req.userInfo?.username ?? "", req.userInfo?.groups ?? [])
      : null,
  };
}

/** The AdmissionRequest as the `request` variable shows it. */
function requestJson(
  req: EngineRequest,
  target: RequestTarget,
  object: JsonValue,
  oldObject: JsonValue,
): JsonValue {
  const operation = target.operation;
  const kind = { group: target.group, version: target.version, kind: target.kind };
  const resource = { group: target.group, version: target.version, resource: target.resource };
  const request: { [key: string]: JsonValue } = {
    uid: "",
    kind,
    resource,
    requestKind: kind,
    requestResource: resource,
    name: target.name,
    namespace: target.namespace,
    operation,
    userInfo: userInfoJson(req),
    object,
    oldObject,
    dryRun: req.dryRun ?? false,
    options: null,
    roles: req.roles ?? [],
    clusterRoles: req.clusterRoles ?? [],
  };
  if (target.subresource !== "") {
    request.subResource = target.subresource;
    request.requestSubResource = target.subresource;
  }
  return request;
}
