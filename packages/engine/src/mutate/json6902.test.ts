import type { JsonValue } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { applyJson6902, parseJson6902 } from "./index.js";

function patched(doc: JsonValue, ops: JsonValue, options?: Parameters<typeof applyJson6902>[2]): JsonValue {
  const result = applyJson6902(doc, ops, options);
  if (!result.ok) throw new Error(result.error);
  return result.value;
}

function failure(doc: JsonValue, ops: JsonValue, options?: Parameters<typeof applyJson6902>[2]): string {
  const result = applyJson6902(doc, ops, options);
  if (result.ok) throw new Error(`expected an error, got ${JSON.stringify(result.value)}`);
  return result.error;
}

describe("applyJson6902", () => {
  it.each<[string, JsonValue, JsonValue, JsonValue]>([
    ["add a key", { a: 1 }, [{ op: "add", path: "/b", value: 2 }], { a: 1, b: 2 }],
    ["add replaces an existing key", { a: 1 }, [{ op: "add", path: "/a", value: 2 }], { a: 2 }],
    ["add inserts into a list", { l: [1, 3] }, [{ op: "add", path: "/l/1", value: 2 }], { l: [1, 2, 3] }],
    ["add appends with /-", { l: [1] }, [{ op: "add", path: "/l/-", value: 2 }], { l: [1, 2] }],
    ["add at the list length appends", { l: [1] }, [{ op: "add", path: "/l/1", value: 2 }], { l: [1, 2] }],
    ["add at -1 appends", { l: [1, 2] }, [{ op: "add", path: "/l/-1", value: 3 }], { l: [1, 2, 3] }],
    [
      "add at -2 inserts before the last",
      { l: [1, 2] },
      [{ op: "add", path: "/l/-2", value: 3 }],
      { l: [1, 3, 2] },
    ],
    [
      "add unescapes ~1 and ~0",
      { a: {} },
      [{ op: "add", path: "/a/x~1y~0z", value: 1 }],
      { a: { "x/y~z": 1 } },
    ],
    ["add the whole document", { a: 1 }, [{ op: "add", path: "", value: { b: 2 } }], { b: 2 }],
    ["remove a key", { a: 1, b: 2 }, [{ op: "remove", path: "/a" }], { b: 2 }],
    ["remove a list element", { l: [1, 2, 3] }, [{ op: "remove", path: "/l/1" }], { l: [1, 3] }],
    ["remove the last element with -1", { l: [1, 2, 3] }, [{ op: "remove", path: "/l/-1" }], { l: [1, 2] }],
    ["remove a missing key does nothing", { a: 1 }, [{ op: "remove", path: "/b/c" }], { a: 1 }],
    ["remove a missing index does nothing", { l: [1] }, [{ op: "remove", path: "/l/5" }], { l: [1] }],
    ["replace a key", { a: 1 }, [{ op: "replace", path: "/a", value: [1] }], { a: [1] }],
    ["replace a list element", { l: [1, 2] }, [{ op: "replace", path: "/l/0", value: 9 }], { l: [9, 2] }],
    [
      "move a value",
      { a: { x: 1 }, b: {} },
      [{ op: "move", from: "/a/x", path: "/b/y" }],
      { a: {}, b: { y: 1 } },
    ],
    [
      "copy a value",
      { a: { x: [1] } },
      [{ op: "copy", from: "/a/x", path: "/b" }],
      { a: { x: [1] }, b: [1] },
    ],
    [
      "test a value then change it",
      { a: 1 },
      [
        { op: "test", path: "/a", value: 1 },
        { op: "replace", path: "/a", value: 2 },
      ],
      { a: 2 },
    ],
    ["test null on a missing path", { a: 1 }, [{ op: "test", path: "/b", value: null }], { a: 1 }],
    [
      "later operations see earlier ones",
      {},
      [
        { op: "add", path: "/l", value: [] },
        { op: "add", path: "/l/-", value: 1 },
      ],
      { l: [1] },
    ],
  ])("%s", (_, doc, ops, expected) => {
    expect(patched(doc, ops)).toEqual(expected);
  });

  it.each<[string, JsonValue, string, JsonValue]>([
    ["maps", {}, "/a/b/c", { a: { b: { c: 1 } } }],
    ["a list for a numeric token", {}, "/a/0/b", { a: [{ b: 1 }] }],
    [
      "a list for -1 (add-node-affinity)",
      { s: {} },
      "/s/terms/-1/exprs/-1",
      { s: { terms: [{ exprs: [1] }] } },
    ],
    ["a list for -", {}, "/env/-", { env: [1] }],
    ["a list padded with nulls", {}, "/a/2", { a: [null, null, 1] }],
    [
      "into the last element with -1",
      { l: [{ a: 1 }, { b: 2 }] },
      "/l/-1/c",
      { l: [{ a: 1 }, { b: 2, c: 1 }] },
    ],
    ["over a null value", { a: null }, "/a/b", { a: { b: 1 } }],
  ])("add creates missing parents: %s", (_, doc, path, expected) => {
    expect(patched(doc, [{ op: "add", path, value: 1 }])).toEqual(expected);
  });

  it("does not modify its input", () => {
    const doc = { a: { l: [1] } };
    patched(doc, [
      { op: "add", path: "/a/l/-", value: 2 },
      { op: "remove", path: "/a/l/0" },
    ]);
    expect(doc).toEqual({ a: { l: [1] } });
  });

  it.each<[string, JsonValue, JsonValue, RegExp]>([
    ["ops that are not a list", {}, { op: "add" }, /must be a list/],
    ["an operation that is not a map", {}, ["x"], /operation 0: an operation must be a map/],
    ["an unknown op", {}, [{ op: "merge", path: "/a" }], /unexpected operation "merge"/],
    ["a missing path", {}, [{ op: "add", value: 1 }], /missing "path"/],
    [
      "a path without a leading slash",
      {},
      [{ op: "add", path: "a/b", value: 1 }],
      /must begin with a forward slash/,
    ],
    ["add without value", {}, [{ op: "add", path: "/a" }], /missing "value"/],
    ["add beyond the list end", { l: [1] }, [{ op: "add", path: "/l/3", value: 1 }], /invalid index: 3/],
    [
      "add with a word as list index",
      { l: [1] },
      [{ op: "add", path: "/l/x", value: 1 }],
      /not a proper array index/,
    ],
    ["add under a scalar", { a: "s" }, [{ op: "add", path: "/a/b/c", value: 1 }], /inside a string/],
    ["replace of a missing key", { a: 1 }, [{ op: "replace", path: "/b", value: 1 }], /missing key/],
    ["replace under a missing parent", { a: 1 }, [{ op: "replace", path: "/b/c", value: 1 }], /missing path/],
    ["remove of the whole document", { a: 1 }, [{ op: "remove", path: "" }], /whole document/],
    ["a failed test", { a: 1 }, [{ op: "test", path: "/a", value: 2 }], /testing value failed/],
    ["move from a missing path", {}, [{ op: "move", from: "/a", path: "/b" }], /missing from path/],
    ["move into its own child", { a: {} }, [{ op: "move", from: "/a", path: "/a/b" }], /own children/],
    [
      "the second operation, by index",
      {},
      [
        { op: "add", path: "/a", value: 1 },
        { op: "replace", path: "/b", value: 1 },
      ],
      /operation 1 \(replace \/b\)/,
    ],
  ])("rejects %s", (_, doc, ops, message) => {
    expect(failure(doc, ops)).toMatch(message);
  });

  it("can be strict like plain RFC 6902", () => {
    const strict = { allowMissingPathOnRemove: false, ensurePathExistsOnAdd: false };
    expect(failure({ a: 1 }, [{ op: "remove", path: "/b" }], strict)).toMatch(/nonexistent key: b/);
    expect(failure({ l: [] }, [{ op: "remove", path: "/l/0" }], strict)).toMatch(/invalid index/);
    expect(failure({}, [{ op: "add", path: "/a/b", value: 1 }], strict)).toMatch(/doc is missing path/);
  });
});

describe("parseJson6902", () => {
  it("parses a YAML list of operations", () => {
    const text = `- op: add\n  path: /spec/tolerations/-\n  value:\n    key: a\n    operator: Equal\n- path: "/metadata/labels/purpose"\n  op: remove\n`;
    expect(parseJson6902(text)).toEqual({
      ok: true,
      ops: [
        { op: "add", path: "/spec/tolerations/-", value: { key: "a", operator: "Equal" } },
        { path: "/metadata/labels/purpose", op: "remove" },
      ],
    });
  });

  it("parses JSON and keeps YAML 1.2 scalars", () => {
    expect(parseJson6902('[{"op":"add","path":"/a","value":"8200"}]')).toEqual({
      ok: true,
      ops: [{ op: "add", path: "/a", value: "8200" }],
    });
    expect(parseJson6902("- op: add\n  path: /a\n  value: yes\n")).toEqual({
      ok: true,
      ops: [{ op: "add", path: "/a", value: "yes" }],
    });
  });

  it("treats an empty string as no operations", () => {
    expect(parseJson6902("  \n")).toEqual({ ok: true, ops: [] });
  });

  it.each<[string, string, RegExp]>([
    ["a map", "op: add\npath: /a\n", /not a list of operations/],
    ["a list of scalars", "- add\n", /operation 0 is not a map/],
    ["broken YAML", "- op: [add\n", /failed to decode JSON patch/],
  ])("rejects %s", (_, text, message) => {
    const result = parseJson6902(text);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toMatch(message);
  });
});
