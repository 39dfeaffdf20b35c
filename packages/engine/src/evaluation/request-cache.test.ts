import type { KubeObject } from "@kyverno-ts/api";
import { loadPolicy } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { createEngine } from "../engine.js";
import type { EngineRequest } from "../engine-types.js";
import { createJmespath } from "../jmespath/index.js";
import { createRequestCache, searchShared, sharedSearches } from "./request-cache.js";

const kind = { group: "", version: "v1", kind: "Pod" };
const pod = (name: string): KubeObject => ({ apiVersion: "v1", kind: "Pod", metadata: { name } });

describe("request cache", () => {
  it("builds one context per request for every policy sharing the cache", () => {
    const cache = createRequestCache();
    const req: EngineRequest = { resource: pod("a"), operation: "CREATE", cache };
    const first = sharedSearches(req, kind, false)?.ctx;
    expect(first).toBeDefined();
    expect(sharedSearches({ ...req }, kind, false)?.ctx).toBe(first);
    expect(sharedSearches(req, kind, true)?.ctx).not.toBe(first);
    expect(sharedSearches(req, kind, false)?.ctx).toBe(first);
  });

  it("rebuilds when a field the context comes from differs", () => {
    const cache = createRequestCache();
    const req: EngineRequest = { resource: pod("a"), operation: "CREATE", cache };
    const first = sharedSearches(req, kind, false)?.ctx;
    const other = sharedSearches({ ...req, resource: pod("b") }, kind, false)?.ctx;
    expect(other).not.toBe(first);
    expect(other?.request).toMatchObject({ name: "b" });
    expect(sharedSearches({ ...req, operation: "UPDATE" }, kind, false)?.ctx).not.toBe(first);
  });

  it("shares nothing without a cache", () => {
    const req: EngineRequest = { resource: pod("a"), operation: "CREATE" };
    expect(sharedSearches(req, kind, false)).toBeUndefined();
  });

  it("remembers plain lookups on the shared context only", () => {
    const jp = createJmespath({ clock: { now: () => new Date(0).getTime() } });
    const req: EngineRequest = { resource: pod("a"), operation: "CREATE", cache: createRequestCache() };
    const searches = sharedSearches(req, kind, false);
    if (searches === undefined) throw new Error("a request with a cache shares searches");
    const { ctx } = searches;
    const plain = searchShared(jp, ctx, "request.name", searches);
    expect(plain).toEqual({ ok: true, value: "a" });
    expect(searchShared(jp, ctx, "request.name", searches)).toBe(plain);
    const call = searchShared(jp, ctx, "to_upper(request.name)", searches);
    expect(call).toEqual({ ok: true, value: "A" });
    expect(searchShared(jp, ctx, "to_upper(request.name)", searches)).not.toBe(call);
    const other = { ...ctx };
    expect(searchShared(jp, other, "request.name", searches)).not.toBe(plain);
  });

  it("gives every policy of one request the same timestamp, read once from the clock", () => {
    let ms = 1_000;
    const engine = createEngine({
      clock: {
        now: () => {
          ms += 1_000;
          return ms;
        },
      },
    });
    const policy = (name: string) => {
      const loaded = loadPolicy(
        {
          apiVersion: "kyverno.io/v1",
          kind: "ClusterPolicy",
          metadata: { name },
          spec: {
            rules: [
              {
                name: "r",
                match: { any: [{ resources: { kinds: ["Pod"] } }] },
                validate: { message: "m", pattern: { metadata: { name: "?*" } } },
              },
            ],
          },
        },
        { file: "policy.yaml" },
      );
      if (!loaded.ok) throw new Error("policy does not load");
      const compiled = engine.compile(loaded.value);
      if (!compiled.ok) throw new Error("policy does not compile");
      return compiled.policy;
    };
    const [a, b] = [policy("a"), policy("b")];
    const shared: EngineRequest = { resource: pod("x"), operation: "CREATE", cache: createRequestCache() };
    const first = engine.validate(a, shared).timestamp;
    expect(engine.validate(b, shared).timestamp).toBe(first);
    const alone: EngineRequest = { resource: pod("x"), operation: "CREATE" };
    expect(engine.validate(a, alone).timestamp).toBeGreaterThan(first);
  });
});
