import { describe, expect, it } from "vitest";
import { hasWildcard, matchWildcard } from "./wildcard.js";

describe("matchWildcard", () => {
  it.each([
    ["*", "", true],
    ["*", "anything", true],
    ["nginx:*", "nginx:1.2", true],
    ["nginx:*", "busybox:1.2", false],
    ["?at", "cat", true],
    ["?at", "at", false],
    ["*:latest", "reg/x:latest", true],
    ["a*b*c", "aXXbYYc", true],
    ["a*b*c", "aXXbYY", false],
    ["kube-*", "kube-system", true],
    ["plain", "plain", true],
    ["plain", "plainer", false],
    ["", "", true],
    ["", "x", false],
    ["x", "", false],
    ["?", "", false],
    ["*", "", true],
    ["a?", "a?", true],
    ["?b", "ab", true],
    ["b*", "ab", false],
    ["*b", "ab", true],
  ])("%s vs %s → %s", (pattern, value, expected) => {
    expect(matchWildcard(pattern, value)).toBe(expected);
  });
  it("detects wildcard characters", () => {
    expect(hasWildcard("a*")).toBe(true);
    expect(hasWildcard("a?")).toBe(true);
    expect(hasWildcard("abc")).toBe(false);
  });
});
