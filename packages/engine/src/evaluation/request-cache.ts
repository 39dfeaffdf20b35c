/**
 * What the policies evaluated for one request can share: the base JSON context (`request.*`, service
 * account, images) and the results of plain JMESPath lookups made on it. A caller that evaluates many
 * policies against one request (the admission webhook) creates a cache with `createRequestCache`
 * and puts it in every `EngineRequest` of that request; the context is then built once, not once per
 * policy, and `{{ request.operation }}` is looked up once for all rules.
 */
import type { EngineRequest, RequestCache } from "../engine-types.js";
import type { Jmespath, JmespathMeter, JmespathResult } from "../jmespath/index.js";
import type { MatchRequest, RequestKind } from "../match/index.js";
import type { PolicyEvalEnv } from "../pipeline/env.js";
import type { ResourceRef } from "../response/types.js";
import type { JsonContext } from "./json-context.js";
import { requestContext } from "./request-context.js";

/** Namespace labels by namespace name (the engine's `namespaceLabels` option). */
export type NamespaceLabelLookup = (namespace: string) => Record<string, string> | undefined;

/** The per-request facts; shared by the policies of a request, so never modified. */
export interface RequestFacts {
  readonly gvk: RequestKind;
  readonly namespaceLabels: Record<string, string> | undefined;
  /** The request matched against, without a policy namespace (see `matchRequestFor`). */
  readonly matchReq: MatchRequest;
  /** The object's reference; each response gets its own copy (`copyRef`). */
  readonly resource: ResourceRef;
}

/** Facts remembered in a request cache, with the request fields they came from. */
export interface CachedFacts {
  readonly resource: unknown;
  readonly oldResource: unknown;
  readonly operation: unknown;
  readonly subresource: unknown;
  readonly requestKind: unknown;
  readonly namespaceLabels: unknown;
  readonly userInfo: unknown;
  readonly roles: unknown;
  readonly clusterRoles: unknown;
  readonly lookup: NamespaceLabelLookup;
  readonly facts: RequestFacts;
}

/** Searches remembered for one context (only read while `scope.ctx` is this `ctx`). */
export interface SharedSearches {
  readonly ctx: JsonContext;
  readonly results: Map<string, JmespathResult>;
}

interface Kind {
  group: string;
  version: string;
  kind: string;
}

/** The request fields a context is built from; any change rebuilds it. */
interface Built {
  resource: unknown;
  oldResource: unknown;
  operation: unknown;
  userInfo: unknown;
  roles: unknown;
  clusterRoles: unknown;
  subresource: unknown;
  dryRun: unknown;
  requestNamespace: unknown;
  requestName: unknown;
  group: string;
  version: string;
  kind: string;
  withImages: boolean;
  searches: SharedSearches;
}

/** What a `RequestCache` holds (only the engine's evaluation reads it). */
export interface RequestCacheState extends RequestCache {
  /** The last two contexts built (with and without images), newest first. */
  built: Built[];
  /** The request's timestamp (epoch ms), read from the clock by the first policy evaluated. */
  timestamp: number | undefined;
  /** The request facts last computed (see `requestFactsOf`). */
  facts: CachedFacts | undefined;
  /**
   * The evaluation env last built for the request (`engine.ts`), reused while the engine (its `jp`),
   * context loader and deadline are the same.
   */
  env?: PolicyEvalEnv | undefined;
}

/**
 * A cache for the `EngineRequest`s of one request (one cache per request: it is never cleared).
 * Whatever is cached is rebuilt when a request field it came from differs, so sharing a cache between
 * requests that differ (the old object evaluated on UPDATE, say) is correct, only slower.
 */
export function createRequestCache(): RequestCache {
  const state: RequestCacheState = {
    kind: "RequestCache",
    built: [],
    timestamp: undefined,
    facts: undefined,
    env: undefined,
  };
  return state;
}

/** The state behind `req.cache`, if the request has one. */
export function cacheState(req: EngineRequest): RequestCacheState | undefined {
  return req.cache as RequestCacheState | undefined;
}

const MAX_BUILT = 2;
/** Most remembered searches per context (a context lives for one request). */
const MAX_SEARCHES = 256;

function matches(b: Built, req: EngineRequest, kind: Kind, withImages: boolean): boolean {
  return (
    b.withImages === withImages &&
    b.resource === req.resource &&
    b.oldResource === req.oldResource &&
    b.operation === req.operation &&
    b.userInfo === req.userInfo &&
    b.roles === req.roles &&
    b.clusterRoles === req.clusterRoles &&
    b.subresource === req.subresource &&
    b.dryRun === req.dryRun &&
    b.requestNamespace === req.requestNamespace &&
    b.requestName === req.requestName &&
    b.group === kind.group &&
    b.version === kind.version &&
    b.kind === kind.kind
  );
}

/**
 * The base context of `req` with its shared searches, from `req.cache` when it holds one built from
 * the same fields, else built and remembered there. Undefined when `req` has no cache: the caller
 * builds the context itself (`requestContext`), without shared searches.
 */
export function sharedSearches(
  req: EngineRequest,
  kind: Kind,
  withImages: boolean,
): SharedSearches | undefined {
  const cache = cacheState(req);
  if (cache === undefined) return undefined;
  for (const b of cache.built) if (matches(b, req, kind, withImages)) return b.searches;
  const ctx = requestContext(req, kind, withImages);
  const searches: SharedSearches = { ctx, results: new Map() };
  cache.built.unshift({
    resource: req.resource,
    oldResource: req.oldResource,
    operation: req.operation,
    userInfo: req.userInfo,
    roles: req.roles,
    clusterRoles: req.clusterRoles,
    subresource: req.subresource,
    dryRun: req.dryRun,
    requestNamespace: req.requestNamespace,
    requestName: req.requestName,
    group: kind.group,
    version: kind.version,
    kind: kind.kind,
    withImages,
    searches,
  });
  if (cache.built.length > MAX_BUILT) cache.built.length = MAX_BUILT;
  return searches;
}

/**
 * The timestamp of `req`'s results: read once per request when `req` has a cache (every policy of an
 * admission request then carries the same time, as upstream's), else read for this call.
 */
export function requestTimestamp(req: EngineRequest, read: () => number): number {
  const cache = cacheState(req);
  if (cache === undefined) return read();
  cache.timestamp ??= read();
  return cache.timestamp;
}

/**
 * `jp.search(expression, ctx)`, remembered in `searches` when they belong to `ctx` and the expression
 * calls no function (its result then depends on the context alone; results are only ever read).
 */
export function searchShared(
  jp: Jmespath,
  ctx: JsonContext,
  expression: string,
  searches: SharedSearches | undefined,
  meter?: JmespathMeter,
): JmespathResult {
  if (searches === undefined || searches.ctx !== ctx) return jp.search(expression, ctx, meter);
  // Only expressions without calls are ever remembered, so a remembered one needs no check.
  let result = searches.results.get(expression);
  if (result !== undefined) return result;
  result = jp.search(expression, ctx, meter);
  if (!expression.includes("(") && searches.results.size < MAX_SEARCHES)
    searches.results.set(expression, result);
  return result;
}
