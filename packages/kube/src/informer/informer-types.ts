/** The informer's contract types (options, handlers, the informer), below both its loop and its factory. */
import type { Clock } from "@kyverno-ts/api";
import type { KubeClient } from "../client/client.js";
import type { ApiFailure } from "../client/types.js";

/** Options of `createInformer`. */
export interface InformerOptions {
  client: KubeClient;
  apiVersion: string;
  kind: string;
  /** Watch one namespace only (default: all). */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Milliseconds to wait before retry `attempt` (1, 2, …) after a failure; default `exponentialBackoff()`. */
  delay?: (attempt: number) => number;
  /** Items per list page (default 500). */
  pageSize?: number;
  /** Server-side watch timeout; default a random 300–600 s per watch, as client-go. */
  watchTimeoutSeconds?: number;
  clock?: Clock;
}

/**
 * Options of an informer whose cache keeps `T` made of each object `R` the API server sends, as
 * client-go's transform functions: e.g. a compact form of a large object.
 */
export interface TransformingInformerOptions<T, R> extends InformerOptions {
  /**
   * Applied to each list page and each watch event before the object is cached or handed to a
   * handler (handlers, `list` and `get` see what it returns), so the decoded objects of a large list
   * are not all alive at once. What it returns must keep the object's `metadata` namespace, name and
   * resourceVersion (the cache's key, and how a relist tells changed objects).
   */
  transform: (object: R) => T;
}

/** Reported to `error` handlers; the informer keeps going after each (it retries until stopped). */
export type InformerError =
  | { source: "list" | "watch"; failure: ApiFailure; attempt: number; retryInMs: number }
  | { source: "handler"; event: "add" | "update" | "delete" | "synced"; error: unknown };

/** The handler signature of each informer event. */
export interface InformerHandlers<T> {
  add: (object: T) => void;
  update: (object: T, old: T) => void;
  delete: (object: T) => void;
  error: (error: InformerError) => void;
  /** Once, after the first list is in the cache. */
  synced: () => void;
}

/** A cached, watched view of one kind; create with `createInformer`. Do not mutate the objects it hands out. */
export interface Informer<T> {
  /** Registers a handler; returns a function that removes it. Register before `start()` to see every add. */
  on<E extends keyof InformerHandlers<T>>(event: E, handler: InformerHandlers<T>[E]): () => void;
  /** Starts listing and watching; resolves once synced (or when stopped first). */
  start(): Promise<void>;
  /** Stops the watch and the retries; resolves when the loop has ended. The cache is kept. */
  stop(): Promise<void>;
  /** Cached objects, of one namespace when given. */
  list(namespace?: string): T[];
  /** One cached object; `namespace` is `""` or `undefined` for cluster-scoped kinds. */
  get(namespace: string | undefined, name: string): T | undefined;
  /** True once the first list has been cached. */
  hasSynced(): boolean;
  /** The newest resourceVersion seen (list, event or bookmark); empty before the first list. */
  lastResourceVersion(): string;
}
