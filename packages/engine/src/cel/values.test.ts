import {
  type CelInput,
  type CelList,
  type CelMap,
  celList,
  celMap,
  isCelList,
  isCelMap,
} from "@bufbuild/cel";
import { describe, expect, it } from "vitest";
import { createCelEnvironment } from "./env.js";
import { createSession } from "./session.js";
import { createValueCache, opaque, opaquePayload, toCelValue, toJson } from "./values.js";

const json = { name: "a", nothing: null, count: 3, ratio: 0.5, nested: { x: true }, list: [1, "b"] };

/** The same object as `@bufbuild/cel`'s own map of the converted fields. */
function libraryMap(): CelMap {
  const fields = new Map<string, CelInput>();
  for (const [k, v] of Object.entries(json)) fields.set(k, toCelValue(v));
  return celMap(fields);
}

describe("JSON objects as CEL maps", () => {
  it("are recognised as maps by @bufbuild/cel (its brand) and passed through as they are", () => {
    const map = toCelValue(json);
    expect(isCelMap(map)).toBe(true);
    // The library converts what a list holds (`toCel`); its own maps pass as they are.
    expect(celList([map]).get(0)).toBe(map);
  });

  it("answer get, has and size as the library's own maps do (has is false for a null field)", () => {
    const map = toCelValue(json) as CelMap;
    const reference = libraryMap();
    for (const key of ["name", "nothing", "count", "missing", "constructor", "__proto__", 1n, 1, true]) {
      expect(map.has(key as string)).toBe(reference.has(key as string));
      expect(toJson(map.get(key as string))).toEqual(toJson(reference.get(key as string)));
    }
    expect(map.has("nothing")).toBe(false);
    expect(map.size).toBe(reference.size);
    expect([...map.keys()]).toEqual([...reference.keys()]);
    expect(toJson(map)).toEqual(json);
  });

  it("work with the library's functions and the planner's operators", () => {
    const env = createCelEnvironment({ variables: ["object"] });
    const run = (expression: string) => {
      const compiled = env.compile(expression);
      if (!compiled.ok) throw new Error(compiled.error);
      const out = compiled.program.evaluate({ object: toCelValue(json) }, createSession());
      return out.ok ? toJson(out.value) : `error: ${out.error}`;
    };
    expect(run("'name' in object && !('nothing' in object) && has(object.nested.x)")).toBe(true);
    expect(
      run(
        "object == {'name': 'a', 'nothing': null, 'count': 3, 'ratio': 0.5, 'nested': {'x': true}, 'list': [1, 'b']}",
      ),
    ).toBe(true);
    expect(run("object.map(k, k).size() == size(object) && object.nested.all(k, k == 'x')")).toBe(true);
    expect(run("object.missing")).toBe("error: no such key: missing");
  });

  it("opaque values are maps of one marker entry; a JSON object is never one, whatever its keys", () => {
    const value = opaque("quantity", "1Gi");
    expect(isCelMap(value)).toBe(true);
    expect(value.size).toBe(1);
    expect([...value.keys()]).toEqual(["\u0000kyverno-ts:quantity"]);
    expect(value.get("\u0000kyverno-ts:quantity")).toBe("1Gi");
    expect(opaquePayload(value, "quantity")).toBe("1Gi");
    expect(opaquePayload(value, "optional")).toBeUndefined();
    expect(toJson(value)).toBe("1Gi");
    const spoof = toCelValue({ "\u0000kyverno-ts:quantity": "1Gi" });
    expect(opaquePayload(spoof, "quantity")).toBeUndefined();
    expect(toJson(spoof)).toEqual({ "\u0000kyverno-ts:quantity": "1Gi" });
  });

  it("JSON arrays are @bufbuild/cel lists answering size, get and iteration as its own", () => {
    const list = toCelValue([1, "b", { c: true }]) as CelList;
    const reference = celList([1n, "b", toCelValue({ c: true })]);
    expect(isCelList(list)).toBe(true);
    expect(celList([list]).get(0)).toBe(list);
    expect(list.size).toBe(reference.size);
    for (const i of [-1, 0, 1, 2, 3]) expect(toJson(list.get(i))).toEqual(toJson(reference.get(i)));
    expect([...list].map(toJson)).toEqual([...reference].map(toJson));
  });
});

describe("createValueCache", () => {
  it("converts an object once while it is recent, and lets it go after newer ones displaced it", () => {
    const cache = createValueCache();
    const pod = { metadata: { name: "web" } };
    const first = cache.of(pod);
    expect(cache.of(pod)).toBe(first);
    for (let i = 0; i < 8; i++) cache.of({ i });
    const again = cache.of(pod);
    expect(again).not.toBe(first);
    expect((again as unknown as CelMap).get("metadata")).toBeDefined();
  });
});
