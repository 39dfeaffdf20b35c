/**
 * @kyverno-ts/kube: the controllers' Kubernetes client (its own transport and kubeconfig loader;
 * `@kubernetes/client-node` only for the credentials the loader leaves to it): a client for any kind
 * (API errors as values, QPS/burst limits, query metrics), informers, a rate-limited work queue,
 * leader election on a Lease and an event recorder. The public API is this list; nothing is re-exported wholesale.
 */

export { type Clock, systemClock } from "@kyverno-ts/api";
export { BUILTIN_RESOURCES, builtinApiVersions, builtinKindOf } from "./client/builtin-resources.js";
export { createKubeClient, type KubeClient, type KubeClientOptions } from "./client/client.js";
export { isConflict, isNotFound } from "./client/failure.js";
export type {
  ApiFailure,
  ApiResourceInfo,
  ApiResult,
  DeleteOptions,
  ListQuery,
  ObjectHeader,
  ObjectList,
  ObjectRef,
  Patch,
  QueryEvent,
  WatchEvent,
  WatchStream,
  WriteOptions,
} from "./client/types.js";
export type { EventObjectRef, EventRecord, EventType } from "./events/event.js";
export { createEventRecorder, type EventRecorder, type EventRecorderStats } from "./events/recorder.js";
export { exponentialBackoff } from "./informer/backoff.js";
export { createInformer, type Informer, type InformerError } from "./informer/informer.js";
export { createLeaderElector, type LeaderElector } from "./leader/elector.js";
export type { Lease } from "./leader/lease.js";
export { exponentialRateLimiter } from "./queue/rate-limiters.js";
export {
  createWorkQueue,
  type ReconcileContext,
  type ReconcileResult,
  type WorkQueue,
} from "./queue/work-queue.js";
