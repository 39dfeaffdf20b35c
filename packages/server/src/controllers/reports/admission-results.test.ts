import type { PolicyReportResult } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { createAdmissionResultStore } from "./admission-results.js";

const result = (policy: string, status: PolicyReportResult["result"]): PolicyReportResult => ({
  policy,
  rule: "r",
  result: status,
});

describe("admission result store", () => {
  it("keeps the newest answer of each policy per resource", () => {
    const store = createAdmissionResultStore();
    store.record("u1", "p", [result("p", "fail")]);
    store.record("u1", "q", [result("q", "pass")]);
    store.record("u1", "p", [result("p", "pass")]);
    expect([...(store.get("u1") ?? [])]).toEqual([
      ["p", [result("p", "pass")]],
      ["q", [result("q", "pass")]],
    ]);
    store.delete("u1");
    expect(store.get("u1")).toBeUndefined();
  });
  it("is bounded: the least recently admitted resources go first", () => {
    const store = createAdmissionResultStore({ maxResources: 2 });
    store.record("a", "p", []);
    store.record("b", "p", []);
    store.record("a", "q", []);
    store.record("c", "p", []);
    expect(store.size).toBe(2);
    expect(store.get("b")).toBeUndefined();
    expect(store.get("a")).toBeDefined();
  });
  it("seeds from a report only when nothing newer arrived", () => {
    const store = createAdmissionResultStore();
    store.record("a", "p", [result("p", "fail")]);
    store.seed("a", new Map([["p", [result("p", "pass")]]]));
    store.seed("b", new Map([["p", [result("p", "pass")]]]));
    expect(store.get("a")?.get("p")).toEqual([result("p", "fail")]);
    expect(store.get("b")?.get("p")).toEqual([result("p", "pass")]);
  });
});
