import type { JsonValue } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { validateCompiled } from "../pattern/index.js";
import { findVariable } from "../variables/substitute.js";
import { createEngineMemo, precompilePatterns } from "./memo.js";

describe("createEngineMemo", () => {
  it("answers containsVariables once per document", () => {
    const memo = createEngineMemo();
    const withVars = { a: ["x", { b: "{{ request.name }}" }] };
    const without = { a: ["x", { b: "y" }] };
    expect(memo.containsVariables(withVars)).toBe(true);
    expect(memo.containsVariables(without)).toBe(false);
    expect(memo.containsVariables({ "{{ key }}": 1 })).toBe(true);
  });

  it("compiles a policy pattern once and reuses it", () => {
    const memo = createEngineMemo();
    const pattern = { spec: { containers: [{ image: "!*:latest" }] } };
    const compiled = memo.pattern(pattern);
    expect(memo.pattern(pattern)).toBe(compiled);
    expect(memo.pattern({ ...pattern })).not.toBe(compiled);
    const pod = (image: string): JsonValue => ({ spec: { containers: [{ image }] } });
    expect(validateCompiled(pod("nginx:1"), compiled).status).toBe("pass");
    expect(validateCompiled(pod("nginx:latest"), compiled).status).toBe("fail");
  });

  it("remembers string patterns by text, and compiles other scalars each time", () => {
    const memo = createEngineMemo();
    expect(memo.pattern("a*")).toBe(memo.pattern("a*"));
    expect(validateCompiled("abc", memo.pattern("a*")).status).toBe("pass");
    expect(validateCompiled("xbc", memo.pattern("a*")).status).toBe("fail");
    expect(validateCompiled(5, memo.pattern(5)).status).toBe("pass");
    for (let i = 0; i < 3000; i++)
      expect(validateCompiled(`v${i}`, memo.pattern(`v${i}`)).status).toBe("pass");
  });

  it("parses a kinds list once", () => {
    const memo = createEngineMemo();
    const kinds = ["Pod", "apps/v1/Deployment", "a/b/c/d/e"];
    const parsed = memo.kindSelectors(kinds);
    expect(memo.kindSelectors(kinds)).toBe(parsed);
    expect(parsed).toEqual([
      { group: "*", version: "*", kind: "Pod", subresource: "" },
      { group: "apps", version: "v1", kind: "Deployment", subresource: "" },
      undefined,
    ]);
  });

  it("parses patchesJson6902 once per owner and text", () => {
    const memo = createEngineMemo();
    const owner = {};
    const text = "- op: add\n  path: /metadata/labels/a\n  value: b\n";
    const parsed = memo.json6902(owner, text);
    expect(parsed).toEqual({ ok: true, ops: [{ op: "add", path: "/metadata/labels/a", value: "b" }] });
    expect(memo.json6902(owner, text)).toBe(parsed);
    expect(memo.json6902(owner, "[]")).toEqual({ ok: true, ops: [] });
    expect(memo.json6902({}, "- : [")).toMatchObject({ ok: false });
  });

  it("finds variables as findVariable does, remembering strings within a bound", () => {
    const memo = createEngineMemo();
    const s = "name: {{ request.object.metadata.name }}!";
    expect(memo.findVariable(s)).toEqual(findVariable(s));
    expect(memo.findVariable(s)).toBe(memo.findVariable(s));
    expect(memo.findVariable("\\{{ escaped }}")).toBeUndefined();
    expect(memo.findVariable("{{ a }}")).toEqual({ start: 0, length: 7, expression: "a", shallow: false });
    // Thousands of distinct strings neither break answers nor grow the cache without bound.
    for (let i = 0; i < 5000; i++) {
      expect(memo.findVariable(`x{{- v${i} }}`)).toEqual({
        start: 1,
        length: 8 + String(i).length,
        expression: `v${i}`,
        shallow: true,
      });
    }
    expect(memo.findVariable(s)).toEqual(findVariable(s));
  });
});

describe("precompilePatterns", () => {
  it("compiles the variable-free patterns of blocks and nested foreach entries", () => {
    const memo = createEngineMemo();
    const pattern = { spec: { x: "1" } };
    const any: JsonValue[] = [{ a: "1" }, { b: "{{ request.name }}" }];
    const nested = { c: "?*" };
    precompilePatterns(memo, [{ pattern, anyPattern: any, foreach: [{ foreach: [{ pattern: nested }] }] }]);
    const compiled = memo.pattern(pattern);
    expect(memo.pattern(pattern)).toBe(compiled);
    expect(memo.pattern(nested)).toBe(memo.pattern(nested));
    expect(memo.pattern(any[0] as JsonValue)).toBe(memo.pattern(any[0] as JsonValue));
  });
});
