import type { KubeClient } from "@kyverno-ts/kube";
import { describe, expect, it } from "vitest";
import { fakeClock, recordingLogger } from "../../testing/fixtures.js";
import type { ProcessOutcome } from "./process.js";
import type { UpdateRequest } from "./update-request.js";
import { POLICY_KIND_WAIT_MS, type ReconcileDeps, reconcileUpdateRequest } from "./ur-reconcile.js";

const pending = {
  apiVersion: "kyverno.io/v2",
  kind: "UpdateRequest",
  metadata: { name: "ur-1", namespace: "kyverno", resourceVersion: "5" },
  spec: {
    requestType: "cel-generate",
    policy: "late-defaults",
    rule: "",
    resource: { apiVersion: "v1", kind: "Namespace", name: "team-a" },
    ruleContext: [],
    deleteDownstream: false,
    context: {},
  },
  status: { state: "Pending" },
} as unknown as UpdateRequest;

function deps(ready: () => boolean) {
  const processed: string[] = [];
  const writes: string[] = [];
  const client = {
    update: async () => {
      writes.push("update");
      return { ok: true, status: 200, value: {} };
    },
    delete: async () => {
      writes.push("delete");
      return { ok: true, status: 200, value: {} };
    },
  } as unknown as KubeClient;
  const d: ReconcileDeps = {
    client,
    namespace: "kyverno",
    logger: recordingLogger(),
    clock: fakeClock(),
    get: () => pending,
    process: async (ur): Promise<ProcessOutcome> => {
      processed.push(ur.metadata.name);
      return { state: "Skip", message: "GeneratingPolicy late-defaults not found" };
    },
    policyKindReady: ready,
  };
  return { d, processed, writes };
}

describe("reconcileUpdateRequest", () => {
  it("waits for its policy kind to be listed instead of skipping a policy it cannot know yet", async () => {
    let ready = false;
    const t = deps(() => ready);
    const signal = new AbortController().signal;
    // The GeneratingPolicy CRD was installed after start and its informer has not listed: not judged.
    expect(await reconcileUpdateRequest(t.d, "ur-1", signal)).toEqual({
      requeueAfterMs: POLICY_KIND_WAIT_MS,
    });
    expect(t.processed).toEqual([]);
    expect(t.writes).toEqual([]);
    // Listed: processed (here the policy is really gone, so the request is skipped).
    ready = true;
    expect(await reconcileUpdateRequest(t.d, "ur-1", signal)).toBeUndefined();
    expect(t.processed).toEqual(["ur-1"]);
  });
});
