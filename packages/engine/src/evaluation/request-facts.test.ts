import type { KubeObject } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import type { EngineRequest } from "../engine-types.js";
import { createRequestCache } from "./request-cache.js";
import { copyRef, matchRequestFor, requestFactsOf } from "./request-facts.js";

const pod = (name: string): KubeObject => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name, namespace: "default" },
});
const labels = (): Record<string, string> => ({ team: "a" });

describe("request facts", () => {
  it("are computed once per request for every policy sharing the cache", () => {
    const req: EngineRequest = { resource: pod("a"), operation: "CREATE", cache: createRequestCache() };
    const first = requestFactsOf(req, labels);
    expect(first.gvk).toEqual({ group: "", version: "v1", kind: "Pod", subresource: "" });
    expect(first.namespaceLabels).toEqual({ team: "a" });
    expect(first.resource).toEqual({
      apiVersion: "v1",
      kind: "Pod",
      name: "a",
      namespace: "default",
      uid: "",
    });
    expect(requestFactsOf({ ...req }, labels)).toBe(first);
  });

  it("are recomputed when a field they come from differs, and without a cache", () => {
    const req: EngineRequest = { resource: pod("a"), operation: "CREATE", cache: createRequestCache() };
    const first = requestFactsOf(req, labels);
    const other = requestFactsOf({ ...req, resource: pod("b") }, labels);
    expect(other.resource.name).toBe("b");
    expect(requestFactsOf({ ...req, operation: "UPDATE" }, labels).matchReq.operation).toBe("UPDATE");
    expect(requestFactsOf(req, () => undefined).namespaceLabels).toBeUndefined();
    const alone: EngineRequest = { resource: pod("a"), operation: "CREATE" };
    expect(requestFactsOf(alone, labels)).not.toBe(requestFactsOf(alone, labels));
    expect(first.resource.name).toBe("a");
  });

  it("add a namespaced policy's namespace on a copy, and copy references", () => {
    const facts = requestFactsOf({ resource: pod("a"), cache: createRequestCache() }, labels);
    const namespaced = matchRequestFor(facts, "default");
    expect(namespaced.policyNamespace).toBe("default");
    expect(facts.matchReq.policyNamespace).toBeUndefined();
    expect(matchRequestFor(facts, undefined)).toBe(facts.matchReq);
    const ref = copyRef(facts.resource);
    expect(ref).toEqual(facts.resource);
    expect(ref).not.toBe(facts.resource);
  });
});
