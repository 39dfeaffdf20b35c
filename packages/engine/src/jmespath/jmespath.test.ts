import * as library from "@jmespath-community/jmespath";
import type { JsonValue } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { createJmespath } from "./index.js";

const clock = { now: () => new Date("2023-01-12T12:00:00Z").getTime() };

describe("createJmespath", () => {
  it("evaluates JMESPath Community expressions", () => {
    const jp = createJmespath({ clock });
    const data: JsonValue = {
      request: {
        object: {
          metadata: { name: "nginx", labels: { app: "web" } },
          spec: { containers: [{ name: "a" }, { name: "b" }] },
        },
      },
    };
    expect(jp.search("request.object.metadata.name", data)).toEqual({ ok: true, value: "nginx" });
    expect(jp.search("request.object.spec.containers[].name", data)).toEqual({ ok: true, value: ["a", "b"] });
    expect(jp.search("length(request.object.spec.containers) > `1`", data)).toEqual({
      ok: true,
      value: true,
    });
    expect(
      jp.search("let $n = `2` in request.object.spec.containers[?name == 'b'] | length(@)", data),
    ).toEqual({ ok: true, value: 1 });
    expect(jp.search("missing.field", data)).toEqual({ ok: true, value: null });
  });

  it("keeps the community built-ins that Kyverno does not override", () => {
    const jp = createJmespath({ clock });
    expect(jp.search("to_string(@)", { a: [1] })).toEqual({ ok: true, value: '{"a":[1]}' });
    expect(jp.search("join('-', ['a', 'b'])", null)).toEqual({ ok: true, value: "a-b" });
    expect(jp.search("pad_left('7', `3`, '0')", null)).toEqual({ ok: true, value: "007" });
    expect(jp.search("trim_left('  x ')", null)).toEqual({ ok: true, value: "x " });
    expect(jp.search("trim_right('xyy', 'y')", null)).toEqual({ ok: true, value: "x" });
    expect(jp.search("starts_with('abc', 'ab')", null)).toEqual({ ok: true, value: true });
  });

  it("never throws: syntax errors, bad calls on @ and deep recursion become errors", () => {
    const jp = createJmespath({ clock });
    expect(jp.search("a.[", {})).toMatchObject({ ok: false, error: expect.stringContaining("Syntax error") });
    expect(jp.search("to_upper(@)", null)).toMatchObject({ ok: false });
    expect(jp.search("base64_decode(@)", [1, 2])).toMatchObject({ ok: false });
    expect(jp.search("x509_decode(@)", true)).toMatchObject({ ok: false });
    expect(jp.search("divide(@, `0`)", 1)).toMatchObject({
      ok: false,
      error: expect.stringContaining("Zero divisor"),
    });
    const deep = `${"[".repeat(20000)}${"]".repeat(20000)}`;
    expect(jp.search(deep, null)).toMatchObject({ ok: false });
  });

  it("names unknown functions", () => {
    const jp = createJmespath({ clock });
    expect(jp.search("no_such_fn(@)", {})).toEqual({ ok: false, error: "Unknown function: no_such_fn()" });
  });

  it("bounds built-ins that build strings or arrays", () => {
    const jp = createJmespath({ clock, maxStringLength: 1000, maxArrayLength: 100 });
    const words = Array.from({ length: 50 }, () => "x".repeat(30));
    expect(jp.search("join(',', @)", words)).toMatchObject({
      ok: false,
      error: expect.stringContaining("join"),
    });
    expect(jp.search("pad_right('a', `5000`)", null)).toMatchObject({ ok: false });
    expect(jp.search("to_string(@)", words)).toMatchObject({ ok: false });
    // shared references: each level multiplies the logical size by 10 without copying
    const bomb =
      "[@,@,@,@,@,@,@,@,@,@] | [@,@,@,@,@,@,@,@,@,@] | [@,@,@,@,@,@,@,@,@,@] | [@,@,@,@,@,@,@,@,@,@]";
    expect(jp.search(bomb, "x")).toEqual({ ok: false, error: "result exceeds the size limit" });
  });

  it("checks the size of results that could outgrow the input, and only those", () => {
    const jp = createJmespath({ clock, maxStringLength: 1000, maxArrayLength: 100 });
    const items = Array.from({ length: 2000 }, (_, i) => ({ name: `n${i}`, tags: ["a"] }));
    // Multi-selects repeat data: 2,000 × 5 names is past 8 × 100 nodes.
    expect(jp.search("[*].[name, name, name, name, name]", items)).toEqual({
      ok: false,
      error: "result exceeds the size limit",
    });
    // Selections, fallbacks and filters return parts of the input (or booleans), however large it is.
    expect(jp.search("[*].tags[] || `[]`", items)).toMatchObject({ ok: true });
    expect(jp.search("[?name != 'n1'].name | length(@)", items)).toEqual({ ok: true, value: 1999 });
    expect(jp.search("[?name != 'n1'].name", items)).toMatchObject({ ok: true });
    expect(jp.search("missing || `[]`", items)).toEqual({ ok: true, value: [] });
    expect(jp.search("[*].name == `[]`", items)).toEqual({ ok: true, value: false });
  });

  it("keeps function tables per instance and leaves the library's global table alone", () => {
    const early = createJmespath({ clock: { now: () => new Date("2000-01-01T00:00:00Z").getTime() } });
    const late = createJmespath({ clock: { now: () => new Date("2030-01-01T00:00:00Z").getTime() } });
    expect(early.search("time_now()", null)).toEqual({ ok: true, value: "2000-01-01T00:00:00Z" });
    expect(late.search("time_now()", null)).toEqual({ ok: true, value: "2030-01-01T00:00:00Z" });
    expect(library.isRegistered("time_now")).toBe(false);
    expect(library.search({}, "items(@)")).toEqual([]);
  });

  it("caches parsed expressions", () => {
    const jp = createJmespath({ clock });
    for (let i = 0; i < 1500; i++) expect(jp.search(`a[${i % 1200}]`, { a: [1] }).ok).toBe(true);
    expect(jp.search("a[0]", { a: [7] })).toEqual({ ok: true, value: 7 });
  });

  it("keeps answering, errors included, while many expressions come and go", () => {
    const jp = createJmespath({ clock });
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 2500; i++) {
        expect(jp.search(`b.c${i % 2100}`, { b: { c7: i } })).toEqual({
          ok: true,
          value: i % 2100 === 7 ? i : null,
        });
        if (i % 500 === 0) expect(jp.search("a.[", {})).toMatchObject({ ok: false });
        expect(jp.search("hot", { hot: round })).toEqual({ ok: true, value: round });
      }
    }
  });
});

describe("check", () => {
  const jp = createJmespath({ clock });
  it("accepts valid expressions with known functions", () => {
    expect(jp.check("to_upper(request.object.metadata.name)")).toBeUndefined();
    expect(jp.check("items(@, 'k', 'v')[?contains(k, 'a')]")).toBeUndefined();
  });
  it("reports syntax errors and unknown functions without evaluating", () => {
    expect(jp.check("a.[")).toContain("Syntax error");
    expect(jp.check("foo[?bar(@)]")).toBe("Unknown function: bar()");
    expect(jp.check('`{"type": "Function", "name": "x"}`')).toBeUndefined();
  });
  it("rejects literal regular expressions that RE2 does not accept (backreferences)", () => {
    expect(jp.check("regex_match('(a+)\\1', name)")).toContain(
      'regex_match: invalid regular expression "(a+)\\1"',
    );
    expect(jp.check("regex_replace_all('(?P<x>a', name, 'b')")).toContain("invalid regular expression");
    expect(jp.check("regex_match('^(?i)[a-z]+$', name)")).toBeUndefined();
  });
});

describe("functions", () => {
  it("lists every Kyverno function with a signature and description", () => {
    const list = createJmespath({ clock }).functions();
    const names = list.map((f) => f.name);
    for (const name of [
      "compare",
      "equal_fold",
      "replace",
      "replace_all",
      "to_upper",
      "to_lower",
      "trim",
      "trim_prefix",
      "split",
      "regex_replace_all",
      "regex_replace_all_literal",
      "regex_match",
      "pattern_match",
      "label_match",
      "to_boolean",
      "truncate",
      "path_canonicalize",
      "base64_decode",
      "base64_encode",
      "random",
      "add",
      "subtract",
      "multiply",
      "divide",
      "modulo",
      "sum",
      "round",
      "parse_json",
      "parse_yaml",
      "lookup",
      "items",
      "object_from_lists",
      "semver_compare",
      "x509_decode",
      "image_normalize",
      "is_external_url",
      "sha256",
      "sha1",
      "md5",
      "time_now",
      "time_now_utc",
      "time_since",
      "time_add",
      "time_parse",
      "time_utc",
      "time_diff",
      "time_before",
      "time_after",
      "time_between",
      "time_truncate",
      "time_to_cron",
      "length",
      "join",
      "to_string",
    ]) {
      expect(names).toContain(name);
    }
    expect(names).toEqual([...names].sort());
    expect(list.find((f) => f.name === "replace")).toEqual({
      name: "replace",
      signature: "replace(string, string, string, number)",
      returnType: "string",
      description: expect.stringContaining("replaces"),
    });
    expect(list.find((f) => f.name === "pad_left")?.signature).toBe("pad_left(string, number, [string])");
    expect(list.every((f) => f.description !== "")).toBe(true);
  });
});
