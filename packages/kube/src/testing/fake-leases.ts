/** An in-memory Lease API for leader election tests: conditional updates, and per-client outages. */
import type { KubeClient } from "../client/client.js";
import type { ApiResult, ObjectHeader } from "../client/types.js";
import type { Lease } from "../leader/lease.js";

/** How a client behaves: normally, failing every request, or never answering. */
export type Link = "up" | "failing" | "hanging";

/** The shared Lease store and a client factory. */
export interface FakeLeases {
  /** A client whose behaviour the test switches with `link`. */
  client(): { client: KubeClient; setLink(link: Link): void };
  lease(): Lease | undefined;
  writes(): number;
}

const clone = <T>(value: T): T => structuredClone(value);

/** Creates an empty store. */
export function createFakeLeases(): FakeLeases {
  let stored: Lease | undefined;
  let rv = 0;
  let writes = 0;
  const conflict = {
    ok: false as const,
    status: 409,
    reason: "Conflict",
    message: "the object has been modified",
  };

  const handlers = {
    async get(): Promise<ApiResult<Lease>> {
      if (stored === undefined) return { ok: false, status: 404, reason: "NotFound", message: "not found" };
      return { ok: true, status: 200, value: clone(stored) };
    },
    async create(object: Lease): Promise<ApiResult<Lease>> {
      if (stored !== undefined) return { ok: false, status: 409, reason: "AlreadyExists", message: "exists" };
      rv++;
      writes++;
      stored = { ...clone(object), metadata: { ...object.metadata, resourceVersion: String(rv) } };
      return { ok: true, status: 201, value: clone(stored) };
    },
    async update(object: Lease): Promise<ApiResult<Lease>> {
      if (stored === undefined) return { ok: false, status: 404, reason: "NotFound", message: "not found" };
      if (object.metadata.resourceVersion !== stored.metadata.resourceVersion) return conflict;
      rv++;
      writes++;
      stored = { ...clone(object), metadata: { ...object.metadata, resourceVersion: String(rv) } };
      return { ok: true, status: 200, value: clone(stored) };
    },
  };

  return {
    client() {
      let link: Link = "up";
      const call = <T>(run: () => Promise<ApiResult<T>>, signal?: AbortSignal): Promise<ApiResult<T>> => {
        if (link === "failing")
          return Promise.resolve({ ok: false, status: 0, reason: "Unreachable", message: "down" });
        if (link === "hanging")
          return new Promise((resolve) =>
            signal?.addEventListener("abort", () =>
              resolve({ ok: false, status: 0, reason: "Aborted", message: "aborted" }),
            ),
          );
        return run();
      };
      const client = {
        get: (_ref: unknown, options?: { signal?: AbortSignal }) =>
          call(() => handlers.get(), options?.signal),
        create: (object: ObjectHeader, options?: { signal?: AbortSignal }) =>
          call(() => handlers.create(object as Lease), options?.signal),
        update: (object: ObjectHeader, options?: { signal?: AbortSignal }) =>
          call(() => handlers.update(object as Lease), options?.signal),
      } as unknown as KubeClient;
      return {
        client,
        setLink: (next) => {
          link = next;
        },
      };
    },
    lease: () => (stored === undefined ? undefined : clone(stored)),
    writes: () => writes,
  };
}
