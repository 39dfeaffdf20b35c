import type { JsonObject, JsonValue } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { applyJson6902, diffJson6902 } from "./index.js";

function roundTrip(before: JsonValue, after: JsonValue): JsonValue[] {
  const ops = diffJson6902(before, after);
  const result = applyJson6902(before, ops, {
    allowMissingPathOnRemove: false,
    ensurePathExistsOnAdd: false,
  });
  expect(result).toEqual({ ok: true, value: after });
  return ops;
}

describe("diffJson6902", () => {
  it.each<[string, JsonValue, JsonValue, JsonValue[]]>([
    ["no change", { a: [1, { b: 2 }] }, { a: [1, { b: 2 }] }, []],
    ["key order does not matter", { a: 1, b: 2 }, { b: 2, a: 1 }, []],
    ["an added key", { a: 1 }, { a: 1, b: { c: 2 } }, [{ op: "add", path: "/b", value: { c: 2 } }]],
    ["a removed key", { a: 1, b: 2 }, { a: 1 }, [{ op: "remove", path: "/b" }]],
    ["a changed scalar", { a: { b: 1 } }, { a: { b: 2 } }, [{ op: "replace", path: "/a/b", value: 2 }]],
    ["a changed type", { a: { b: 1 } }, { a: [1] }, [{ op: "replace", path: "/a", value: [1] }]],
    ["escaped keys", { m: {} }, { m: { "a/b~c": "1" } }, [{ op: "add", path: "/m/a~1b~0c", value: "1" }]],
    [
      "an element prepended",
      { l: [{ n: "a" }] },
      { l: [{ n: "s" }, { n: "a" }] },
      [{ op: "add", path: "/l/0", value: { n: "s" } }],
    ],
    ["an element appended", { l: [1, 2] }, { l: [1, 2, 3] }, [{ op: "add", path: "/l/2", value: 3 }]],
    ["an element removed in the middle", { l: [1, 2, 3] }, { l: [1, 3] }, [{ op: "remove", path: "/l/1" }]],
    [
      "an element changed in place",
      { l: [{ a: 1 }, { a: 2 }] },
      { l: [{ a: 1 }, { a: 3 }] },
      [{ op: "replace", path: "/l/1/a", value: 3 }],
    ],
    ["the whole document", 1, "x", [{ op: "replace", path: "", value: "x" }]],
  ])("%s", (_, before, after, expected) => {
    expect(roundTrip(before, after)).toEqual(expected);
  });

  it("shrinks and grows the middle of a list", () => {
    expect(roundTrip({ l: [0, 1, 2, 3, 9] }, { l: [0, 5, 9] })).toEqual([
      { op: "replace", path: "/l/1", value: 5 },
      { op: "remove", path: "/l/3" },
      { op: "remove", path: "/l/2" },
    ]);
    expect(roundTrip({ l: [0, 1, 9] }, { l: [0, 5, 6, 7, 9] })).toEqual([
      { op: "replace", path: "/l/1", value: 5 },
      { op: "add", path: "/l/2", value: 6 },
      { op: "add", path: "/l/3", value: 7 },
    ]);
  });

  it("is deterministic and round-trips on random documents", () => {
    let seed = 42;
    const next = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const randomValue = (depth: number): JsonValue => {
      const pick = depth > 2 ? next(3) : next(6);
      if (pick === 0) return next(4);
      if (pick === 1) return ["a", "b", "c"][next(3)] ?? "a";
      if (pick === 2) return next(2) === 0 ? null : true;
      if (pick === 3) return Array.from({ length: next(4) }, () => randomValue(depth + 1));
      const out: JsonObject = {};
      for (let i = next(4); i > 0; i--) out[["x", "y", "z", "w/v"][next(4)] ?? "x"] = randomValue(depth + 1);
      return out;
    };
    for (let i = 0; i < 300; i++) {
      const before = randomValue(0);
      const after = randomValue(0);
      const ops = roundTrip(before, after);
      expect(diffJson6902(before, after)).toEqual(ops);
    }
  });
});
