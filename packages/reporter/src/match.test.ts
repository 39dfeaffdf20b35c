import { describe, expect, it } from "vitest";
import { compileIncludeExclude, compileWildcard, isEmptySelection } from "./match.js";

describe("wildcards", () => {
  it("matches * and ? and escapes everything else", () => {
    expect(compileWildcard("kube-*")("kube-system")).toBe(true);
    expect(compileWildcard("kube-*")("kyverno")).toBe(false);
    expect(compileWildcard("team-?")("team-a")).toBe(true);
    expect(compileWildcard("team-?")("team-ab")).toBe(false);
    expect(compileWildcard("a.b")("axb")).toBe(false);
    expect(compileWildcard("(x)+")("(x)+")).toBe(true);
  });

  it("includes, then excludes; an empty selection passes everything", () => {
    const m = compileIncludeExclude({ include: ["team-*"], exclude: ["team-secret"] });
    expect(["team-a", "team-secret", "other"].filter(m)).toEqual(["team-a"]);
    expect(compileIncludeExclude({ exclude: ["kube-*"] })("default")).toBe(true);
    expect(compileIncludeExclude(undefined)("anything")).toBe(true);
    expect(isEmptySelection({ include: [] })).toBe(true);
    expect(isEmptySelection({ exclude: ["x"] })).toBe(false);
  });
});
