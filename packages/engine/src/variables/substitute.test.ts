import type { JsonValue } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import {
  findVariable,
  hasVariables,
  substituteAll,
  substituteAllWith,
  substituteString,
  type VariableFinder,
  type VariableResolver,
} from "./substitute.js";

const values: Record<string, JsonValue> = {
  "request.object.metadata.name": "web",
  "request.object.spec": { replicas: 3 },
  count: 3,
  nested: "{{ count }}",
};
const resolve: VariableResolver = (expr, path) =>
  expr in values
    ? { ok: true, value: values[expr] as JsonValue }
    : { ok: false, error: `unknown ${expr} at ${path}` };

describe("substituteString", () => {
  it("returns the raw JSON value when the string is exactly one variable", () => {
    expect(substituteString("{{ request.object.spec }}", "/p", resolve)).toEqual({
      ok: true,
      value: { replicas: 3 },
    });
    expect(substituteString("{{count}}", "/p", resolve)).toEqual({ ok: true, value: 3 });
  });
  it("interpolates strings and JSON-encodes other values inside text", () => {
    expect(
      substituteString("name={{request.object.metadata.name}} spec={{ request.object.spec }}", "/p", resolve),
    ).toEqual({
      ok: true,
      value: 'name=web spec={"replicas":3}',
    });
  });
  it("re-substitutes variables found in substituted values, except with {{- }}", () => {
    expect(substituteString("{{ nested }}", "/p", resolve)).toEqual({ ok: true, value: 3 });
    expect(substituteString("{{- nested }}", "/p", resolve)).toEqual({ ok: true, value: "{{ count }}" });
  });
  it("keeps escaped variables literal and drops the escape", () => {
    expect(substituteString("literal \\{{ count }}", "/p", resolve)).toEqual({
      ok: true,
      value: "literal {{ count }}",
    });
    expect(hasVariables("\\{{ x }}")).toBe(false);
  });
  it("reports the first unresolved variable with its path", () => {
    expect(substituteString("a {{ missing }}", "/validate/message", resolve)).toEqual({
      ok: false,
      error: "unknown missing at /validate/message",
    });
  });
  it("allows JMESPath multi-select hashes inside braces", () => {
    const r = substituteString("{{ {a: count} }}", "/p", (e) => ({ ok: true, value: e }));
    expect(r).toEqual({ ok: true, value: "{a: count}" });
  });
});

describe("substituteAll", () => {
  it("walks maps, arrays and keys, passing JSON pointer paths", () => {
    const seen: string[] = [];
    const r = substituteAll(
      { spec: { list: ["{{count}}", "x"], "{{request.object.metadata.name}}": 1 } },
      "/validate/pattern",
      (e, p) => {
        seen.push(p);
        return resolve(e, p);
      },
    );
    expect(r).toEqual({ ok: true, value: { spec: { list: [3, "x"], web: 1 } } });
    expect(seen).toContain("/validate/pattern/spec/list/0");
  });
  it("returns the same object when nothing changes", () => {
    const doc = { a: [1, "b", { c: true }] };
    const r = substituteAll(doc, "", resolve);
    expect(r.ok && r.value).toBe(doc);
  });
});

describe("findVariable", () => {
  it.each([
    ["plain text", undefined],
    ["{{ a.b }}", { start: 0, length: 9, expression: "a.b", shallow: false }],
    ["x {{- a }} y {{ b }}", { start: 2, length: 8, expression: "a", shallow: true }],
    ["\\{{ escaped }} {{ c }}", { start: 15, length: 7, expression: "c", shallow: false }],
    ["{{ {k: a} }}", { start: 0, length: 12, expression: "{k: a}", shallow: false }],
    ["{{ unclosed", undefined],
  ])("%s", (s, expected) => {
    expect(findVariable(s)).toEqual(expected);
  });

  it("is asked only for the string itself, not for the values substituted into it", () => {
    const asked: string[] = [];
    const find: VariableFinder = (s) => {
      asked.push(s);
      return findVariable(s);
    };
    expect(substituteString("{{ nested }}", "/p", resolve, find)).toEqual({ ok: true, value: 3 });
    expect(substituteAll({ a: "{{count}}", b: "x" }, "", resolve, undefined, find)).toEqual({
      ok: true,
      value: { a: 3, b: "x" },
    });
    expect(asked).toEqual(["{{ nested }}", "{{count}}"]);
  });
});

describe("substituteAllWith", () => {
  it("passes its context to the resolver instead of needing a closure", () => {
    const scope: Record<string, JsonValue> = { a: 1, b: "two" };
    const resolveIn = (ctx: Record<string, JsonValue>, expr: string, path: string) =>
      expr in ctx
        ? { ok: true as const, value: ctx[expr] ?? null }
        : { ok: false as const, error: `${expr} at ${path}` };
    expect(substituteAllWith({ x: ["{{a}}", "b={{ b }}"] }, "/p", resolveIn, scope)).toEqual({
      ok: true,
      value: { x: [1, "b=two"] },
    });
    expect(substituteAllWith({ x: ["{{c}}"] }, "/p", resolveIn, scope)).toEqual({
      ok: false,
      error: "c at /p/x/0",
    });
  });
});
