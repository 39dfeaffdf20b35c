import { describe, expect, it } from "vitest";
import { systemClock } from "../../clock.js";
import type { CachedPolicy } from "../../policycache/policy-cache.js";
import { createSlowPolicies } from "./inline-attempt.js";

const policy = (key: string) => ({ key }) as CachedPolicy;

describe("createSlowPolicies", () => {
  it("remembers a policy after three requests in a row overran, not when one finished in between", () => {
    const slow = createSlowPolicies(systemClock());
    const hostile = policy("tenant-a/nested");
    const cheap = policy("disallow-privileged");
    for (const p of [hostile, cheap, hostile, cheap]) slow.overran(p);
    // The cheap policy finished inline in the next request (it was only preempted): its count restarts.
    slow.finished([cheap]);
    slow.overran(cheap);
    expect(slow.any([cheap])).toBe(false);
    expect(slow.any([hostile])).toBe(false);
    slow.overran(hostile);
    expect(slow.any([cheap, hostile])).toBe(true);
    expect(slow.any([cheap])).toBe(false);
  });
});
