/** The environment every verb handler works in, and the parsed request it serves. */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { JsonObject } from "@kyverno-ts/api";
import type { AdmissionChain, RequestUser } from "../admission/types.js";
import type { ResourceRegistry } from "../registry/registry.js";
import type { ResourceType } from "../registry/types.js";
import type { ObjectStore } from "../store/store.js";

/** Shared state of one running sandbox (no module-level state anywhere). */
export interface ApiEnv {
  store: ObjectStore;
  registry: ResourceRegistry;
  /** The admission chain; `undefined` admits everything unchanged. */
  admission: AdmissionChain | undefined;
  now(): Date;
  newUid(): string;
  /** Five random characters appended to `generateName`. */
  nameSuffix(): string;
  /** How often watches with `allowWatchBookmarks=true` get a BOOKMARK (ms). */
  bookmarkIntervalMs: number;
  /** Open watches: ended gracefully when the sandbox stops, or their connection destroyed (tests). */
  watches: Set<OpenWatch>;
  /**
   * The configuration each field manager last applied to an object (server-side apply), by object uid
   * and manager, so a later apply removes what it no longer sets. In memory only; without it, apply
   * only merges.
   */
  appliedConfigurations?: Map<string, JsonObject>;
  /**
   * Checks a create or update of `object` (the existing `old` one on update) by the request's user just
   * before it is stored, and throws the ApiError that refuses it (RBAC escalation prevention).
   */
  checkWrite?: (request: ResourceRequest, object: JsonObject, old: JsonObject | undefined) => void;
}

/** A request addressed to a resource (collection or object, maybe a subresource). */
export interface ResourceRequest {
  resource: ResourceType;
  /** The namespace from the URL (`""` for cluster-scoped resources and all-namespace lists). */
  namespace: string;
  /** The object name from the URL (`""` for collections). */
  name: string;
  subresource: string;
  query: URLSearchParams;
  user: RequestUser;
  req: IncomingMessage;
  res: ServerResponse;
}

/** Whether the request asks for `dryRun=All` (any other value is a 400). */
export function isDryRun(query: URLSearchParams): boolean {
  return query.getAll("dryRun").includes("All");
}

/** An open watch stream. */
export interface OpenWatch {
  /** Ends the response (the client sees a clean end of stream). */
  close(): void;
  /** Destroys the connection (the client sees a network error). */
  destroy(): void;
}
