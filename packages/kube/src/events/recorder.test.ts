import type { KubeObject } from "@kyverno-ts/api";
import { createManualClock, flush } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import type { ApiResult, ObjectRef, Patch } from "../client/types.js";
import type { EventRecord } from "./event.js";
import { createEventRecorder, type EventRecorderOptions } from "./recorder.js";

type Call = { op: "create"; object: KubeObject } | { op: "patch"; ref: ObjectRef; patch: Patch };

/** An in-memory Event API: answers every write with `answer` (ok by default), or holds it while `hold` is set. */
function fakeEvents() {
  const calls: Call[] = [];
  const held: Array<() => void> = [];
  const state = {
    hold: false,
    answer: (_call: Call): ApiResult<KubeObject> => ({ ok: true, status: 201, value: {} }),
  };
  const respond = (call: Call): Promise<ApiResult<KubeObject>> => {
    calls.push(call);
    if (!state.hold) return Promise.resolve(state.answer(call));
    return new Promise((resolve) => held.push(() => resolve(state.answer(call))));
  };
  const client = {
    create: <T>(object: T) =>
      respond({ op: "create", object: object as KubeObject }) as Promise<ApiResult<T>>,
    patch: <T>(ref: ObjectRef, patch: Patch) => respond({ op: "patch", ref, patch }) as Promise<ApiResult<T>>,
  } as EventRecorderOptions["client"];
  const release = () => {
    state.hold = false;
    for (const r of held.splice(0)) r();
  };
  return { client, calls, state, release };
}

const violation = (
  pod: string,
  note = "policy require-labels/check-team fail: label team is required",
): EventRecord => ({
  reportingController: "kyverno-admission",
  regarding: { apiVersion: "v1", kind: "Pod", name: pod, namespace: "team-a", uid: `uid-${pod}` },
  related: { apiVersion: "kyverno.io/v1", kind: "ClusterPolicy", name: "require-labels", uid: "p-1" },
  type: "Warning",
  reason: "PolicyViolation",
  action: "Resource Passed",
  note,
});

function setup(extra: Partial<EventRecorderOptions> = {}) {
  const clock = createManualClock(Date.UTC(2026, 0, 2, 3, 4, 5));
  const api = fakeEvents();
  const drops: string[] = [];
  const recorder = createEventRecorder({
    client: api.client,
    identity: "kyverno-admission-controller-7d9f-abcde",
    clock,
    retryDelayMs: 1000,
    onDrop: (reason) => drops.push(reason),
    ...extra,
  });
  recorder.start();
  return { clock, api, recorder, drops };
}

const creates = (calls: Call[]) =>
  calls.filter((c) => c.op === "create").map((c) => (c as { object: KubeObject }).object);
const patches = (calls: Call[]) =>
  calls.filter((c) => c.op === "patch") as Array<Extract<Call, { op: "patch" }>>;

describe("event recorder", () => {
  it("creates an events.k8s.io/v1 Event as client-go's recorder does (no deprecated fields)", async () => {
    const { api, recorder } = setup();
    recorder.record(violation("web-1"));
    await recorder.flush();
    expect(creates(api.calls)).toEqual([
      {
        apiVersion: "events.k8s.io/v1",
        kind: "Event",
        metadata: { name: expect.stringMatching(/^web-1\.[0-9a-f]+$/), namespace: "team-a" },
        regarding: {
          apiVersion: "v1",
          kind: "Pod",
          name: "web-1",
          namespace: "team-a",
          uid: "uid-web-1",
        },
        related: { apiVersion: "kyverno.io/v1", kind: "ClusterPolicy", name: "require-labels", uid: "p-1" },
        reason: "PolicyViolation",
        note: "policy require-labels/check-team fail: label team is required",
        type: "Warning",
        action: "Resource Passed",
        eventTime: "2026-01-02T03:04:05.000000Z",
        reportingController: "kyverno-admission",
        reportingInstance: "kyverno-admission-kyverno-admission-controller-7d9f-abcde",
      },
    ]);
  });

  it("puts Events about cluster-scoped objects in the default namespace and cuts long messages to 1024 characters", async () => {
    const { api, recorder } = setup();
    recorder.record({
      ...violation("x"),
      regarding: { apiVersion: "kyverno.io/v1", kind: "ClusterPolicy", name: "require-labels" },
      note: "m".repeat(5000),
    });
    await recorder.flush();
    const [event] = creates(api.calls);
    expect(event?.metadata?.namespace).toBe("default");
    expect(String(event?.note).length).toBe(1024);
  });

  it("folds identical occurrences into one Event: the first repetition at once, later counts at the refresh", async () => {
    const { api, recorder, clock } = setup();
    recorder.record(violation("web-1"));
    await recorder.flush();
    await clock.settle(1000);
    recorder.record(violation("web-1"));
    await flush();
    expect(patches(api.calls).map((p) => p.patch.patch)).toEqual([
      { series: { count: 2, lastObservedTime: "2026-01-02T03:04:06.000000Z" } },
    ]);
    for (let i = 0; i < 98; i++) recorder.record(violation("web-1"));
    await flush();
    expect(patches(api.calls)).toHaveLength(1);
    await clock.settle(30_000);
    const last = patches(api.calls).at(-1);
    expect(patches(api.calls)).toHaveLength(2);
    expect(last?.ref).toEqual({
      apiVersion: "events.k8s.io/v1",
      kind: "Event",
      name: creates(api.calls)[0]?.metadata?.name,
      namespace: "team-a",
    });
    expect(last?.patch.patch).toEqual({
      series: { count: 100, lastObservedTime: expect.any(String) },
    });
    expect(creates(api.calls)).toHaveLength(1);
    expect(recorder.stats()).toMatchObject({ recorded: 100, aggregated: 99, created: 1, patched: 2 });
  });

  it("starts a new Event when the same occurrence comes back after the series ended (6 minutes)", async () => {
    const { api, recorder, clock } = setup();
    recorder.record(violation("web-1"));
    await recorder.flush();
    await clock.settle(6 * 60_000 + 1);
    recorder.record(violation("web-1"));
    await recorder.flush();
    expect(creates(api.calls)).toHaveLength(2);
    expect(patches(api.calls)).toHaveLength(0);
  });

  it("does not fold occurrences that differ in message or object", async () => {
    const { api, recorder } = setup();
    recorder.record(violation("web-1"));
    recorder.record(violation("web-2"));
    recorder.record(violation("web-1", "policy require-labels/check-team error: variable not found"));
    await recorder.flush();
    expect(creates(api.calls)).toHaveLength(3);
  });

  it("lets one source create 25 Events about one object, then one per 5 minutes (spam filter)", async () => {
    const { api, recorder, clock, drops } = setup({ similarEvents: 0 });
    for (let i = 0; i < 40; i++) recorder.record(violation("noisy", `message ${i}`));
    recorder.record(violation("quiet"));
    await recorder.flush();
    expect(creates(api.calls).filter((e) => (e.regarding as { name: string }).name === "noisy")).toHaveLength(
      25,
    );
    expect(creates(api.calls).filter((e) => (e.regarding as { name: string }).name === "quiet")).toHaveLength(
      1,
    );
    expect(recorder.stats().spamFiltered).toBe(15);
    expect(drops.filter((d) => d === "spam")).toHaveLength(15);
    await clock.settle(5 * 60_000);
    recorder.record(violation("noisy", "after five minutes"));
    recorder.record(violation("noisy", "too soon"));
    await recorder.flush();
    expect(creates(api.calls)).toHaveLength(27);
    expect(recorder.stats().spamFiltered).toBe(16);
  });

  it("combines similar occurrences past ten distinct notes into one series (client-go's EventAggregator)", async () => {
    const { api, recorder, clock } = setup();
    // One policy failing on 100 Pods: an occurrence regarding the policy for each, notes naming the Pod.
    const onPolicy = (pod: string): EventRecord => ({
      ...violation(pod, `Pod team-a/${pod}: [check-team] fail; label team is required`),
      regarding: { apiVersion: "kyverno.io/v1", kind: "ClusterPolicy", name: "require-labels", uid: "p-1" },
      related: { apiVersion: "v1", kind: "Pod", name: pod, namespace: "team-a", uid: `uid-${pod}` },
    });
    for (let i = 0; i < 100; i++) recorder.record(onPolicy(`web-${i}`));
    await recorder.flush();
    const created = creates(api.calls);
    expect(created).toHaveLength(10);
    expect(created.slice(0, 9).map((e) => (e.related as { name: string }).name)).toEqual(
      Array.from({ length: 9 }, (_, i) => `web-${i}`),
    );
    const combined = created[9];
    expect(combined?.note).toBe(
      "(combined from similar events): Pod team-a/web-9: [check-team] fail; label team is required",
    );
    expect(combined?.related).toBeUndefined();
    expect(combined?.regarding).toMatchObject({ kind: "ClusterPolicy", name: "require-labels" });
    // All 91 came before the create was written: it carries their count.
    expect(combined?.series).toMatchObject({ count: 91 });
    expect(recorder.stats()).toMatchObject({ recorded: 100, combined: 91, created: 10 });
    await clock.settle(1000);
    recorder.record(onPolicy("web-100"));
    await clock.settle(30_000);
    expect(patches(api.calls).at(-1)?.patch.patch).toMatchObject({ series: { count: 92 } });
    // An identical occurrence still folds into its own series, not the combined one.
    recorder.record(onPolicy("web-0"));
    await recorder.flush();
    expect(creates(api.calls)).toHaveLength(10);
    expect(patches(api.calls).at(-1)?.ref.name).toBe(created[0]?.metadata?.name);
  });

  it("keeps counting similar occurrences about a policy while thousands of other objects come and go", async () => {
    const { api, recorder } = setup({ maxSeries: 64, spamBurst: 1000, maxQueued: 10_000, qps: 0 });
    const onPolicy = (i: number): EventRecord => ({
      ...violation(`web-${i}`, `Pod team-a/web-${i}: [check-team] fail`),
      regarding: { apiVersion: "kyverno.io/v1", kind: "ClusterPolicy", name: "require-labels", uid: "p-1" },
    });
    for (let i = 0; i < 2000; i++) {
      recorder.record(onPolicy(i));
      recorder.record(violation(`web-${i}`));
    }
    await recorder.flush();
    const onThePolicy = creates(api.calls).filter(
      (e) => (e.regarding as { kind: string }).kind === "ClusterPolicy",
    );
    expect(onThePolicy).toHaveLength(10);
    expect(creates(api.calls)).toHaveLength(2010);
  });

  it("keeps folding a busy occurrence into its series while thousands of other series come and go", async () => {
    const { api, recorder } = setup({ maxSeries: 64, spamBurst: 1000, maxQueued: 10_000, qps: 0 });
    const busy = violation("web", "policy require-labels/check-team fail: the busy one");
    for (let i = 0; i < 2000; i++) {
      recorder.record(busy);
      recorder.record(violation(`other-${i}`, `policy p/r fail: ${i}`));
    }
    await recorder.flush();
    const ofBusy = creates(api.calls).filter((e) => e.note === busy.note);
    expect(ofBusy).toHaveLength(1);
    expect(recorder.stats()).toMatchObject({ aggregated: 1999 });
  });

  it("counts similar occurrences anew after ten quiet minutes, and never combines with similarEvents 0", async () => {
    const { api, recorder, clock } = setup({ spamBurst: 1000 });
    for (let i = 0; i < 9; i++) recorder.record(violation("web", `message ${i}`));
    await clock.settle(10 * 60_000 + 1);
    for (let i = 9; i < 18; i++) recorder.record(violation("web", `message ${i}`));
    await recorder.flush();
    expect(creates(api.calls)).toHaveLength(18);
    expect(recorder.stats().combined).toBe(0);
    const off = setup({ similarEvents: 0, spamBurst: 1000 });
    for (let i = 0; i < 30; i++) off.recorder.record(violation("web", `message ${i}`));
    await off.recorder.flush();
    expect(creates(off.api.calls)).toHaveLength(30);
  });

  it("drops new Events past maxQueued while the API server does not answer, without blocking the caller", async () => {
    const { api, recorder, drops } = setup({ maxQueued: 10, workers: 2, spamBurst: 1000 });
    api.state.hold = true;
    for (let i = 0; i < 50; i++) recorder.record(violation(`pod-${i}`));
    // record() only enqueues: nothing is written before the caller's turn ends.
    expect(api.calls).toHaveLength(0);
    expect(recorder.stats()).toMatchObject({ queueFull: 40, pending: 10 });
    await flush();
    expect(api.calls).toHaveLength(2);
    for (let i = 50; i < 60; i++) recorder.record(violation(`pod-${i}`));
    // Two writes in flight left two free places in the queue.
    expect(recorder.stats()).toMatchObject({ queueFull: 48, pending: 12 });
    expect(drops.filter((d) => d === "queueFull")).toHaveLength(48);
    // Repetitions of queued Events are still counted: they need no queue slot.
    recorder.record(violation("pod-3"));
    expect(recorder.stats().aggregated).toBe(1);
    api.release();
    await recorder.flush();
    expect(creates(api.calls)).toHaveLength(12);
    expect(
      creates(api.calls)
        .map((e) => (e.regarding as { name: string }).name)
        .slice(-2),
    ).toEqual(["pod-50", "pod-51"]);
  });

  it("never writes omitted reasons", async () => {
    const { api, recorder } = setup({ omitReasons: ["PolicyApplied", "PolicySkipped"] });
    recorder.record({
      ...violation("a"),
      reason: "PolicyApplied",
      type: "Normal",
      note: "Pod team-a/a: pass",
    });
    recorder.record({ ...violation("a"), reason: "PolicySkipped", type: "Normal" });
    recorder.record(violation("a"));
    await recorder.flush();
    expect(creates(api.calls).map((e) => e.reason)).toEqual(["PolicyViolation"]);
    expect(recorder.stats().omitted).toBe(2);
  });

  it("writes no faster than qps after the burst", async () => {
    const { api, recorder, clock } = setup({ qps: 10, burst: 5, spamBurst: 1000 });
    for (let i = 0; i < 25; i++) recorder.record(violation(`pod-${i}`));
    await flush();
    expect(creates(api.calls)).toHaveLength(5);
    await clock.settle(1000);
    expect(creates(api.calls)).toHaveLength(15);
    await clock.settle(1000);
    expect(creates(api.calls)).toHaveLength(25);
  });

  it("retries server errors up to maxTries and gives up at once on a refusal", async () => {
    const { api, recorder, clock, drops } = setup({ maxTries: 3 });
    api.state.answer = (call) =>
      call.op === "create" && (call.object.regarding as { name: string }).name === "forbidden"
        ? { ok: false, status: 403, reason: "Forbidden", message: "events is forbidden" }
        : { ok: false, status: 503, reason: "ServiceUnavailable", message: "etcd is down" };
    recorder.record(violation("forbidden"));
    recorder.record(violation("unlucky"));
    await flush();
    expect(api.calls).toHaveLength(2);
    await clock.settle(5000);
    expect(api.calls).toHaveLength(4);
    expect(recorder.stats()).toMatchObject({ failed: 2, pending: 0 });
    expect(drops).toEqual(["failed", "failed"]);
  });

  it("creates the Event again when a series patch finds it deleted", async () => {
    const { api, recorder } = setup();
    recorder.record(violation("web-1"));
    await recorder.flush();
    api.state.answer = (call) =>
      call.op === "patch"
        ? { ok: false, status: 404, reason: "NotFound", message: "not found" }
        : { ok: true, status: 201, value: {} };
    recorder.record(violation("web-1"));
    await recorder.flush();
    expect(api.calls.map((c) => c.op)).toEqual(["create", "patch", "create"]);
    expect(creates(api.calls)[1]).toMatchObject({ series: { count: 2 } });
  });

  it("stop() writes what is queued, then ignores further records", async () => {
    const { api, recorder } = setup();
    recorder.record(violation("a"));
    await recorder.stop();
    recorder.record(violation("b"));
    await flush();
    expect(creates(api.calls)).toHaveLength(1);
  });
});
