/**
 * @kyverno-ts/kube: typed wrappers over `@kubernetes/client-node` for the controllers: a client for any
 * kind (API errors as values, QPS/burst limits, query metrics), informers, a rate-limited work queue,
 * leader election on a Lease and an event recorder. The public API is this list; nothing is re-exported wholesale.
 */

export { type Clock, systemClock } from "@kyverno-ts/api";
export {
  BUILTIN_RESOURCES,
  type BuiltinResource,
  builtinApiVersions,
  builtinKindOf,
} from "./client/builtin-resources.js";
export { createKubeClient, type KubeClient, type KubeClientOptions } from "./client/client.js";
export { isConflict, isNotFound } from "./client/failure.js";
export type {
  ApiFailure,
  ApiResourceInfo,
  ApiResult,
  ApiSuccess,
  DeleteOptions,
  JsonPatchOperation,
  ListQuery,
  ObjectHeader,
  ObjectList,
  ObjectRef,
  Patch,
  QueryEvent,
  QueryOperation,
  ResourceQuery,
  StatusDetails,
  WatchEnd,
  WatchEvent,
  WatchQuery,
  WatchStream,
  WriteOptions,
} from "./client/types.js";
export {
  type EventObjectRef,
  type EventRecord,
  type EventType,
  MAX_NOTE_LENGTH,
} from "./events/event.js";
export {
  createEventRecorder,
  type EventDropReason,
  type EventRecorder,
  type EventRecorderLogger,
  type EventRecorderOptions,
  type EventRecorderStats,
} from "./events/recorder.js";
export { type ExponentialBackoffOptions, exponentialBackoff } from "./informer/backoff.js";
export {
  createInformer,
  type Informer,
  type InformerError,
  type InformerHandlers,
  type InformerOptions,
} from "./informer/informer.js";
export {
  createLeaderElector,
  type LeaderElector,
  type LeaderElectorOptions,
} from "./leader/elector.js";
export type { LeaderRecord, Lease } from "./leader/lease.js";
export {
  bucketRateLimiter,
  defaultControllerRateLimiter,
  exponentialRateLimiter,
  maxOfRateLimiters,
  type RateLimiter,
} from "./queue/rate-limiters.js";
export {
  createWorkQueue,
  type QueueEvent,
  type ReconcileContext,
  type ReconcileResult,
  type Reconciler,
  type WorkQueue,
  type WorkQueueOptions,
} from "./queue/work-queue.js";
export { createTokenBucket, type TokenBucket, type TokenBucketOptions } from "./ratelimit/token-bucket.js";
