import type { KubeObject } from "@kyverno-ts/api";
import { silentLogger } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import type { DocumentLoad } from "./documents.js";
import { createPolicyRecords, type PolicySink } from "./policy-records.js";

function object(spec: Record<string, unknown>, status?: Record<string, unknown>): KubeObject {
  return {
    apiVersion: "kyverno.io/v1",
    kind: "ClusterPolicy",
    metadata: { name: "p" },
    spec,
    ...(status ? { status } : {}),
  } as unknown as KubeObject;
}

function sink(): PolicySink<string> & { held: Map<string, string> } {
  const held = new Map<string, string>();
  return {
    held,
    set: (policy) => {
      held.set("p", policy);
      return { ready: true };
    },
    delete: (key) => void held.delete(key),
  };
}

describe("createPolicyRecords", () => {
  it("loads a changed object once per change of its spec, at a new revision", () => {
    let revision = 0;
    const records = createPolicyRecords({ logger: silentLogger, nextRevision: () => ++revision });
    const store = sink();
    let loads = 0;
    const load = (value: string) => (): DocumentLoad<string> => {
      loads++;
      return { ok: true, value };
    };
    expect(records.upsert("p", object({ a: 1 }), load("v1"), store)).toBe(true);
    expect(records.upsert("p", object({ a: 1 }, { ready: true }), load("v1"), store)).toBe(false);
    expect(loads).toBe(1);
    expect(records.revision("p")).toBe(1);
    expect(records.upsert("p", object({ a: 2 }), load("v2"), store)).toBe(true);
    expect(store.held.get("p")).toBe("v2");
    expect(records.revision("p")).toBe(2);
    expect(records.keys()).toEqual(["p"]);
  });

  it("remembers why an object cannot be loaded and takes it out of the store", () => {
    let revision = 0;
    const records = createPolicyRecords({ logger: silentLogger, nextRevision: () => ++revision });
    const store = sink();
    records.upsert("p", object({ a: 1 }), () => ({ ok: true, value: "v1" }), store);
    records.upsert("p", object({ a: 2 }), () => ({ ok: false, reason: "spec.rules: required" }), store);
    expect(store.held.has("p")).toBe(false);
    expect(records.failure("p")).toBe("spec.rules: required");
    records.remove("p");
    expect(records.keys()).toEqual([]);
    expect(records.failure("p")).toBeUndefined();
    expect(revision).toBe(3);
  });
});
