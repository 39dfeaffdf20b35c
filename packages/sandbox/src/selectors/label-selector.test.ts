import { describe, expect, it } from "vitest";
import { matchesLabels, parseLabelSelector } from "./label-selector.js";

const matches = (selector: string, labels: Record<string, string>): boolean => {
  const parsed = parseLabelSelector(selector);
  if (!parsed.ok) throw new Error(parsed.error);
  return matchesLabels(parsed.selector, labels);
};

describe("label selectors", () => {
  const labels = { app: "web", tier: "front", "example.com/team": "a", n: "5" };
  it.each([
    ["", true],
    ["app=web", true],
    ["app==web", true],
    ["app!=web", false],
    ["missing!=x", true],
    ["app in (web,api)", true],
    ["app in (api)", false],
    ["app notin (api)", true],
    ["missing notin (api)", true],
    ["tier", true],
    ["missing", false],
    ["!missing", true],
    ["!app", false],
    ["app=web,tier=front", true],
    ["app=web,tier=back", false],
    ["example.com/team=a", true],
    ["n>3", true],
    ["n<3", false],
    [" app = web , tier in ( front , back ) ", true],
  ])("%s → %s", (selector, expected) => {
    expect(matches(selector, labels)).toBe(expected);
  });

  it("rejects invalid syntax with a reason", () => {
    for (const bad of ["app=we b", "-bad=x", "app in (a b)", "a,,b"]) {
      const parsed = parseLabelSelector(bad);
      expect(parsed.ok, bad).toBe(false);
      if (!parsed.ok) expect(parsed.error).toMatch(/^unable to parse requirement/);
    }
  });
});
