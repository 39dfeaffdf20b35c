/**
 * The request handler, in kube-apiserver's filter order: authentication, impersonation, authorization,
 * then routing, discovery documents and verb dispatch.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { JsonObject } from "@kyverno-ts/api";
import type { RequestUser } from "../admission/types.js";
import type { Authenticator } from "../auth/authenticator.js";
import { type DistinctHeaders, impersonate, wantsImpersonation } from "../auth/impersonation.js";
import type { ServiceAccountTokens } from "../auth/service-account-tokens.js";
import { handleTokenRequest } from "../auth/token-request.js";
import {
  AGGREGATED_DISCOVERY,
  aggregatedDiscovery,
  coreVersions,
  groupInfo,
  groupList,
  resourceList,
  versionInfo,
  wantsAggregated,
} from "../discovery/discovery.js";
import { openApiDocument, openApiRoot } from "../discovery/openapi.js";
import type { Authorizer } from "../rbac/authorizer.js";
import { requestAttributes } from "../rbac/request-info.js";
import { handleAccessReview } from "../reviews/access-reviews.js";
import { handleIdentityReview } from "../reviews/identity-reviews.js";
import type { ApiEnv, ResourceRequest } from "../verbs/context.js";
import { handleCreate } from "../verbs/create.js";
import { handleDelete, handleDeleteCollection } from "../verbs/delete.js";
import { handleEviction } from "../verbs/eviction.js";
import { handlePatch } from "../verbs/patch.js";
import { handlePodLog, type PodLogSource } from "../verbs/pod-log.js";
import { handleGet, handleList } from "../verbs/read.js";
import { handleConnect, handleScale } from "../verbs/subresources.js";
import { handleUpdate } from "../verbs/update.js";
import { handleWatch } from "../watch/watch.js";
import { sendError, sendJson } from "./respond.js";
import { type Route, route } from "./router.js";
import { forbiddenRequest, methodNotAllowed, resourceNotFound, unauthorized } from "./status.js";

/** Options of the handler. */
export interface HandlerOptions {
  env: ApiEnv;
  authenticator: Authenticator;
  authorizer: Authorizer;
  /**
   * Whether requests without credentials are authorized like any other (RBAC mode, as kube-apiserver
   * with anonymous auth); otherwise they may only read the public paths (`/version`, health).
   */
  authorizeAnonymous: boolean;
  tokens: ServiceAccountTokens;
  /** `host:port` reported in `/api`. */
  serverAddress: () => string;
  /** Containers' output for `pods/log` (none: every container is "waiting to start"). */
  podLogs?: PodLogSource;
}

const PUBLIC = new Set(["version", "health"]);
const REVIEW_GROUPS = new Set(["authentication.k8s.io", "authorization.k8s.io"]);

/** Creates the `(req, res)` function the HTTPS server calls. */
export function createHandler(options: HandlerOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const { env, authenticator, authorizer } = options;
  return (req, res) => {
    handle(req, res).catch((e: unknown) => sendError(res, e));
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "https://sandbox");
    const target = route(url.pathname, env.registry);
    const user = authorize(req, url, target);
    if (target.kind !== "resource") {
      serveDocument(req, res, target);
      return;
    }
    const resource = env.registry.find(target.group, target.version, target.plural);
    if (resource === undefined) throw resourceNotFound();
    if (target.namespaced !== resource.namespaced && (target.name !== "" || target.namespaced))
      throw resourceNotFound();
    if (target.subresource !== "" && !resource.subresources.includes(target.subresource))
      throw resourceNotFound();
    const request: ResourceRequest = {
      resource,
      namespace: target.namespace,
      name: target.name,
      subresource: target.subresource,
      query: url.searchParams,
      user,
      req,
      res,
    };
    await dispatch(request, req.method ?? "GET");
  }

  /** Authenticates, applies impersonation and authorizes; returns the user the request acts as. */
  function authorize(req: IncomingMessage, url: URL, target: Route): RequestUser {
    const authentication = authenticator.authenticate(req.headers.authorization);
    if (authentication.kind === "invalid") throw unauthorized();
    if (authentication.kind === "anonymous" && !options.authorizeAnonymous) {
      if (!PUBLIC.has(target.kind)) throw unauthorized();
      return authentication.user;
    }
    let user = authentication.user;
    if (wantsImpersonation(req.headers))
      user = impersonate(user, distinctHeaders(req), (u, a) => authorizer.authorize(u, a));
    const attributes = requestAttributes(req.method ?? "GET", url);
    const decision = authorizer.authorize(user, attributes);
    if (!decision.allowed) throw forbiddenRequest(user.username, attributes, decision.reason);
    return user;
  }

  async function dispatch(request: ResourceRequest, method: string): Promise<void> {
    const verbs = request.resource.verbs;
    const allow = (verb: string): void => {
      if (!verbs.includes(verb)) throw methodNotAllowed();
    };
    const sub = request.subresource;
    if (REVIEW_GROUPS.has(request.resource.group) && !request.resource.custom && request.name === "") {
      if (method !== "POST") throw methodNotAllowed();
      if (request.resource.group === "authorization.k8s.io") return handleAccessReview(request, authorizer);
      return handleIdentityReview(request, authenticator);
    }
    if (sub === "token" && request.resource.kind === "ServiceAccount" && request.resource.group === "") {
      if (method !== "POST") throw methodNotAllowed();
      return handleTokenRequest(env, request, options.tokens);
    }
    if (sub === "scale") return handleScale(env, request, method);
    if (sub === "eviction" && request.resource.kind === "Pod") return handleEviction(env, request, method);
    if (sub === "log") {
      if (method !== "GET") throw methodNotAllowed();
      return handlePodLog(env, request, options.podLogs);
    }
    if (sub === "exec" || sub === "attach" || sub === "portforward") {
      if (method !== "GET" && method !== "POST") throw methodNotAllowed();
      return handleConnect(env, request);
    }
    if (request.name !== "") {
      switch (method) {
        case "GET":
          allow("get");
          return handleGet(env, request);
        case "PUT":
          allow("update");
          return handleUpdate(env, request);
        case "PATCH":
          allow("patch");
          return handlePatch(env, request);
        case "DELETE":
          if (sub !== "") throw methodNotAllowed();
          allow("delete");
          return handleDelete(env, request);
        default:
          throw methodNotAllowed();
      }
    }
    const watch = request.query.get("watch");
    switch (method) {
      case "GET":
        if (watch === "true" || watch === "1") {
          allow("watch");
          return handleWatch(env, request);
        }
        allow("list");
        return handleList(env, request);
      case "POST":
        allow("create");
        if (request.resource.namespaced && request.namespace === "") throw methodNotAllowed();
        return handleCreate(env, request);
      case "DELETE":
        allow("deletecollection");
        return handleDeleteCollection(env, request);
      default:
        throw methodNotAllowed();
    }
  }

  function serveDocument(
    req: IncomingMessage,
    res: ServerResponse,
    target: Exclude<Route, { kind: "resource" }>,
  ): void {
    if (req.method !== "GET" && req.method !== "HEAD") throw methodNotAllowed();
    const registry = env.registry;
    const aggregated = wantsAggregated(req.headers.accept);
    let doc: JsonObject | undefined;
    let contentType = "application/json";
    switch (target.kind) {
      case "version":
        doc = versionInfo();
        break;
      case "health":
        res.writeHead(200, { "Content-Type": "text/plain; charset=utf-8" });
        res.end("ok");
        return;
      case "api":
      case "apis":
        if (aggregated) {
          doc = aggregatedDiscovery(registry, target.kind === "api");
          contentType = AGGREGATED_DISCOVERY;
        } else doc = target.kind === "api" ? coreVersions(options.serverAddress()) : groupList(registry);
        break;
      case "group":
        doc = groupInfo(registry, target.group);
        break;
      case "groupVersion":
        doc = resourceList(registry, target.group, target.version);
        break;
      case "openapiRoot":
        doc = openApiRoot(registry);
        break;
      case "openapi":
        doc = openApiDocument(registry, target.group, target.version);
        break;
      case "notFound":
        break;
    }
    if (doc === undefined) notFoundPage(res);
    else sendJson(res, 200, doc, contentType);
  }
}

/** The plain-text 404 the real server's mux gives for paths it does not route. */
function notFoundPage(res: ServerResponse): void {
  res.writeHead(404, { "Content-Type": "text/plain; charset=utf-8", "X-Content-Type-Options": "nosniff" });
  res.end("404 page not found\n");
}

/** Each header's values (`headersDistinct`, which HTTP/2's compatibility request lacks: from `rawHeaders`). */
function distinctHeaders(req: IncomingMessage): DistinctHeaders {
  if (req.headersDistinct !== undefined) return req.headersDistinct;
  const out: DistinctHeaders = {};
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    const name = (req.rawHeaders[i] as string).toLowerCase();
    out[name] = [...(out[name] ?? []), req.rawHeaders[i + 1] as string];
  }
  return out;
}
