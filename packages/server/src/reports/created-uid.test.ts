import type { KubeObject } from "@kyverno-ts/api";
import type { KubeClient } from "@kyverno-ts/kube";
import { describe, expect, it } from "vitest";
import type { AdmissionResult } from "../controllers/admission/results.js";
import { awaitsUid, resolveCreatedUid } from "./created-uid.js";

const result: AdmissionResult = {
  uid: "req-1",
  timestamp: Date.parse("2026-01-01T00:00:10Z"),
  operation: "CREATE",
  resource: { apiVersion: "v1", kind: "ConfigMap", namespace: "team", name: "settings", uid: "" },
  responses: [],
  phase: "mutate",
};

/** A client whose GET answers `answers` in turn (404 when they run out). */
function clientAnswering(answers: Array<KubeObject | number>): { client: KubeClient; gets: () => number } {
  let gets = 0;
  const client = {
    get: async () => {
      const next = answers[gets++] ?? 404;
      return typeof next === "number"
        ? { ok: false, status: next, reason: "NotFound", message: "not found" }
        : { ok: true, value: next };
    },
  } as unknown as KubeClient;
  return { client, gets: () => gets };
}

const stored = (uid: string, created: string): KubeObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "settings", namespace: "team", uid, creationTimestamp: created },
});

const noSleep = { delays: [0, 0, 0], sleep: async () => {} };

describe("the uid of an object the mutating webhook admitted on CREATE", () => {
  it("waits only for CREATE results without a uid but with a name", () => {
    expect(awaitsUid(result)).toBe(true);
    expect(awaitsUid({ ...result, resource: { ...result.resource, uid: "u" } })).toBe(false);
    expect(awaitsUid({ ...result, resource: { ...result.resource, name: "" } })).toBe(false);
    expect(awaitsUid({ ...result, operation: "UPDATE" })).toBe(false);
  });

  it("looks the object up until it is stored, then answers the result with its uid", async () => {
    const { client, gets } = clientAnswering([404, stored("u-1", "2026-01-01T00:00:10Z")]);
    const resolved = await resolveCreatedUid(client, result, noSleep);
    expect(resolved?.resource.uid).toBe("u-1");
    expect(gets()).toBe(2);
  });

  it("gives up when the object is never stored, or is an older object of the same name", async () => {
    expect(await resolveCreatedUid(clientAnswering([]).client, result, noSleep)).toBeUndefined();
    const older = clientAnswering([stored("u-0", "2025-12-31T00:00:00Z")]);
    expect(await resolveCreatedUid(older.client, result, noSleep)).toBeUndefined();
  });
});
