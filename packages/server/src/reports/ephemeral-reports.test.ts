import { loadPolicy } from "@kyverno-ts/api";
import { createEngine } from "@kyverno-ts/engine";
import type { ApiResult, KubeClient } from "@kyverno-ts/kube";
import { describe, expect, it } from "vitest";
import { type AdmissionResult, createBoundedResultQueue } from "../controllers/admission/results.js";
import { pod, recordingLogger, requireLabelPolicy } from "../controllers/reports/testing/harness.js";
import { createEphemeralReportPublisher } from "./ephemeral-reports.js";

const engine = createEngine();
const loaded = loadPolicy(requireLabelPolicy("require-owner", "owner"), { file: "test" });
const compiled = loaded.ok ? engine.compile(loaded.value) : undefined;
if (compiled?.ok !== true) throw new Error("policy does not compile");
const policy = compiled.policy;

function admitted(name: string): AdmissionResult {
  return {
    uid: `request-${name}`,
    timestamp: 0,
    operation: "CREATE",
    resource: { apiVersion: "v1", kind: "Pod", namespace: "shop", name, uid: `uid-${name}` },
    responses: [engine.validate(policy, { resource: pod(name, "shop"), operation: "CREATE" })],
  };
}

/** A client whose creates are answered by `answer` (after `release()` when `held`). */
function stubClient(answer: () => ApiResult<unknown>, held = false) {
  const calls: string[] = [];
  const waiting: Array<() => void> = [];
  const client = {
    create: async (object: { metadata: { name: string } }) => {
      calls.push(object.metadata.name);
      if (held) await new Promise<void>((resolve) => waiting.push(resolve));
      return answer();
    },
  } as unknown as KubeClient;
  const release = () => {
    for (const resolve of waiting.splice(0)) resolve();
  };
  return { client, calls, release };
}

describe("ephemeral report publisher", () => {
  it("says once that the cluster does not serve ephemeral reports, then drops results", async () => {
    const { client, calls } = stubClient(() => ({
      ok: false,
      status: 404,
      reason: "UnknownKind",
      message: "the server does not serve reports.kyverno.io/v1 EphemeralReport",
    }));
    const logger = recordingLogger();
    const queue = createBoundedResultQueue({ capacity: 100 });
    const publisher = createEphemeralReportPublisher({ client, source: queue, logger, concurrency: 1 });
    publisher.start();
    queue.offer(admitted("a"));
    queue.offer(admitted("b"));
    await publisher.flush();
    queue.offer(admitted("c"));
    await publisher.flush();
    expect(calls).toEqual(["uid-a"]);
    expect(queue.size).toBe(0);
    const errors = logger.lines.filter((l) => l.level === "error");
    expect(errors).toHaveLength(1);
    expect(errors[0]?.message).toContain("does not serve ephemeral reports");
  });

  it("writes nothing for policies labelled reports.kyverno.io/disabled", async () => {
    const { client, calls } = stubClient(() => ({ ok: true, status: 201, value: {} }));
    const queue = createBoundedResultQueue({ capacity: 100 });
    const publisher = createEphemeralReportPublisher({
      client,
      source: queue,
      reportsDisabled: (ref) => ref.name === "require-owner",
    });
    publisher.start();
    queue.offer(admitted("a"));
    await publisher.flush();
    expect(calls).toEqual([]);
    const open = createEphemeralReportPublisher({ client, source: queue, reportsDisabled: () => false });
    await publisher.stop();
    open.start();
    queue.offer(admitted("b"));
    await open.flush();
    expect(calls).toEqual(["uid-b"]);
    await open.stop();
  });

  it("keeps at most maxPending resources waiting; the rest stays in the bounded queue", async () => {
    const { client, calls, release } = stubClient(() => ({ ok: true, status: 201, value: {} }), true);
    const queue = createBoundedResultQueue({ capacity: 100 });
    const publisher = createEphemeralReportPublisher({
      client,
      source: queue,
      concurrency: 1,
      maxPending: 2,
    });
    publisher.start();
    for (const name of ["a", "b", "c", "d", "e"]) queue.offer(admitted(name));
    await new Promise((resolve) => setTimeout(resolve, 10));
    // One write in flight, two pending, two still queued.
    expect(calls).toEqual(["uid-a"]);
    expect(queue.size).toBe(2);
    const flushed = publisher.flush();
    for (let i = 0; i < 10 && calls.length < 5; i++) {
      release();
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    release();
    await flushed;
    expect(calls).toEqual(["uid-a", "uid-b", "uid-c", "uid-d", "uid-e"]);
    expect(publisher.stats()).toEqual({ written: 5, failed: 0 });
  });

  it("creates its report alone when the older one it merges into is deleted between read and update", async () => {
    // The reports controller deletes an ephemeral report once it has merged it; the publisher's
    // update of that version then finds nothing and must not drop the newer results.
    type Stored = { metadata: { name: string }; spec: { results: unknown[] } };
    const stored = new Map<string, Stored>();
    stored.set("uid-a", { metadata: { name: "uid-a" }, spec: { results: [] } });
    const calls: string[] = [];
    const client = {
      create: async (object: Stored) => {
        calls.push("create");
        if (stored.has(object.metadata.name))
          return { ok: false, status: 409, reason: "AlreadyExists", message: "exists" };
        stored.set(object.metadata.name, object);
        return { ok: true, status: 201, value: object };
      },
      get: async (ref: { name: string }) => {
        calls.push("get");
        const found = stored.get(ref.name);
        return found === undefined
          ? { ok: false, status: 404, reason: "NotFound", message: "not found" }
          : { ok: true, status: 200, value: structuredClone(found) };
      },
      update: async (object: Stored) => {
        calls.push("update");
        stored.delete(object.metadata.name);
        return { ok: false, status: 404, reason: "NotFound", message: "not found" };
      },
    } as unknown as KubeClient;
    const queue = createBoundedResultQueue({ capacity: 100 });
    const publisher = createEphemeralReportPublisher({ client, source: queue, concurrency: 1 });
    publisher.start();
    queue.offer(admitted("a"));
    await publisher.flush();
    expect(calls).toEqual(["create", "get", "update", "create"]);
    expect(publisher.stats()).toEqual({ written: 1, failed: 0 });
    const written = stored.get("uid-a") as { spec?: { results?: Array<{ policy: string }> } } | undefined;
    expect(written?.spec?.results?.map((r) => r.policy)).toEqual(["require-owner"]);
    await publisher.stop();
  });
});
