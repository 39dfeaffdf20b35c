import { describe, expect, test } from "vitest";
import type { JsonValue } from "../policy/json.js";
import { exactlyOne, uniqueBy } from "./checks.js";
import { type Schema, s } from "./dsl.js";
import { validate } from "./validate.js";

const person = s.object(
  {
    name: s.string(),
    age: s.integer(),
    role: s.enum(["Admin", "User"], { ignoreCase: true }),
    tags: s.strings(),
    extra: s.any(),
  },
  { required: ["name"], defaults: { tags: [] }, deprecated: { extra: "use tags" } },
);

const messages = (schema: Schema, value: JsonValue) =>
  validate(schema, value).issues.map(
    (i) => `${i.path.join("/")}: ${i.message}${i.warning ? " (warning)" : ""}`,
  );

describe("validate", () => {
  test("accepts a valid value, applies defaults and canonical enum case", () => {
    const r = validate(person, { name: "a", role: "admin" });
    expect(r.issues).toEqual([]);
    expect(r.value).toEqual({ name: "a", role: "Admin", tags: [] });
  });

  test("reports unknown fields on the parent path, with a hint for typos", () => {
    expect(messages(person, { name: "a", nmae: "b", zzz: 1 })).toEqual([
      ': unknown field "nmae" (did you mean "name"?)',
      ': unknown field "zzz"',
    ]);
  });

  test("reports wrong types", () => {
    expect(messages(person, { name: 1, age: 1.5, tags: "x" })).toEqual([
      "name: expected string, got number",
      "age: expected integer, got number",
      "tags: expected array, got string",
    ]);
    expect(messages(person, [])).toEqual([": expected object, got array"]);
  });

  test("reports missing required fields and invalid enum values", () => {
    expect(messages(person, { role: "root" })).toEqual([
      'role: invalid value "root": must be one of "Admin", "User"',
      ': missing required field "name"',
    ]);
  });

  test("treats null as absent in typed fields but keeps it in free-form ones", () => {
    const r = validate(person, { name: "a", age: null, extra: null });
    expect(r.value).toEqual({ name: "a", extra: null, tags: [] });
    expect(messages(person, { name: null })).toEqual([': missing required field "name"']);
  });

  test("warns about deprecated fields", () => {
    expect(messages(person, { name: "a", extra: 1 })).toEqual([
      ': field "extra" is deprecated; use tags (warning)',
    ]);
  });

  test("unions dispatch on the JSON type", () => {
    const u = s.union({ object: s.object({ a: s.string() }), array: s.strings() });
    expect(messages(u, { a: "x" })).toEqual([]);
    expect(messages(u, ["x"])).toEqual([]);
    expect(messages(u, "x")).toEqual([": expected object or array, got string"]);
  });

  test("lazy schemas allow recursion, with paths into the nesting", () => {
    const node: Schema = s.object({ name: s.string(), children: s.lazy(() => s.array(node)) });
    expect(messages(node, { name: "a", children: [{ name: "b", children: [{ name: 3 }] }] })).toEqual([
      "children/0/children/0/name: expected string, got number",
    ]);
  });

  test("checks run only when their subtree is free of errors", () => {
    const one = s.object({ a: s.string(), b: s.string() }, { checks: [exactlyOne(["a", "b"])] });
    expect(messages(one, {})).toEqual([': one of "a" or "b" must be specified']);
    expect(messages(one, { a: "x", b: "y" })).toEqual([
      ': only one of "a" or "b" can be specified, found "a" and "b"',
    ]);
    expect(messages(one, { a: 1, b: "y" })).toEqual(["a: expected string, got number"]);
    const list = s.array(s.object({ name: s.string() }), uniqueBy("name", "name"));
    expect(messages(list, [{ name: "x" }, { name: "x" }])).toEqual(['1/name: duplicate name "x"']);
  });

  test("foldCase objects accept another case with a warning, as Go's encoding/json", () => {
    const o = s.object({ isMutatingPolicy: s.boolean() }, { foldCase: true });
    const r = validate(o, { isMUtatingPolicy: true });
    expect(r.value).toEqual({ isMutatingPolicy: true });
    expect(r.issues.map((i) => [i.code, i.warning])).toEqual([["unknown-field", true]]);
  });

  test("open objects keep unknown fields", () => {
    const o = s.object({ kind: s.string() }, { open: true });
    expect(validate(o, { kind: "Pod", spec: { x: 1 } })).toEqual({
      value: { kind: "Pod", spec: { x: 1 } },
      issues: [],
    });
  });

  test("maps validate every value and do not mutate the input", () => {
    const input = { a: "x", b: 2 };
    expect(messages(s.stringMap(), input)).toEqual(["b: expected string, got number"]);
    expect(input).toEqual({ a: "x", b: 2 });
  });

  test("a __proto__ key is kept as data", () => {
    const input = JSON.parse('{"__proto__": {"polluted": true}}') as JsonValue;
    const r = validate(s.map(s.any()), input);
    expect(Object.keys(r.value as object)).toEqual(["__proto__"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
