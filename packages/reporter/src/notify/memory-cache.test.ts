import { createManualClock } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { createMemorySeenCache } from "./memory-cache.js";

describe("memory seen cache", () => {
  it("claims an ID once per report and keeps present IDs alive", async () => {
    const clock = createManualClock();
    const cache = createMemorySeenCache({ ttlMs: 1000 }, { clock });
    expect([...(await cache.claim("r", ["a", "b"]))]).toEqual(["a", "b"]);
    expect([...(await cache.claim("r", ["a", "b"]))]).toEqual([]);
    expect([...(await cache.claim("other", ["a"]))]).toEqual(["a"]);
    clock.advance(800);
    await cache.claim("r", ["a"]); // a is refreshed, b has vanished
    clock.advance(800);
    expect([...(await cache.claim("r", ["a", "b"]))]).toEqual(["b"]);
  });

  it("opens, refreshes, expires and resolves failure markers", async () => {
    const clock = createManualClock();
    const cache = createMemorySeenCache({ ttlMs: 1000 }, { clock });
    await cache.trackFailures("r", new Map([["k1", { status: "fail", existing: false }]]), []);
    await cache.trackFailures("r", new Map([["k2", { status: "warn", existing: true }]]), []);
    clock.advance(800);
    await cache.trackFailures("r", new Map(), ["k1"]);
    clock.advance(800);
    const resolved = await cache.resolve("r", ["k1", "k2"]);
    expect([...resolved]).toEqual([["k1", { status: "fail", existing: false }]]);
    expect((await cache.resolve("r", ["k1"])).size).toBe(0);
  });

  it("forgets a report", async () => {
    const cache = createMemorySeenCache({}, { clock: createManualClock() });
    await cache.claim("r", ["a"]);
    await cache.trackFailures("r", new Map([["k", { status: "fail", existing: false }]]), []);
    await cache.forget("r");
    expect([...(await cache.claim("r", ["a"]))]).toEqual(["a"]);
    expect((await cache.resolve("r", ["k"])).size).toBe(0);
  });
});
