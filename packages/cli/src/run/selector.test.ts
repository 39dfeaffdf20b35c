import { describe, expect, it } from "vitest";
import { parseSelector, selects } from "./selector.js";

describe("test case selector", () => {
  it("parses any subset of keys with spaces", () => {
    const s = parseSelector("policy=disallow-*, resource=pod-1");
    expect(s).toEqual({ ok: true, value: { policy: "disallow-*", rule: "*", resource: "pod-1" } });
  });

  it("rejects unknown keys and parts without '='", () => {
    expect(parseSelector("kind=Pod").ok).toBe(false);
    expect(parseSelector("policy").ok).toBe(false);
  });

  it("matches resources by name or ns/name", () => {
    const s = { policy: "*", rule: "*", resource: "pod-1" };
    expect(selects(s, "p", "r", "default/pod-1")).toBe(true);
    expect(selects(s, "p", "r", "pod-2")).toBe(false);
  });
});
