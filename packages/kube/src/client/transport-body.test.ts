import { describe, expect, it } from "vitest";
import { decodeHeader, decodeHeaderOf, textOf } from "./transport-body.js";

describe("decodeHeader", () => {
  it("decodes apiVersion, kind and metadata only, wherever they are, skipping strings with braces and escapes", () => {
    const object = {
      results: [
        { message: 'a "quoted" } ] { [ \\ text', policy: "p" },
        { message: "ends in a backslash \\", rule: '\\"}' },
      ],
      apiVersion: "wgpolicyk8s.io/v1alpha2",
      scope: { kind: "Pod", name: "x" },
      kind: "PolicyReport",
      summary: { pass: 1, fail: 0 },
      metadata: { name: "u", resourceVersion: "42", annotations: { a: "}{" } },
      after: [1, 2.5e3, true, null, "x"],
    };
    expect(decodeHeader(JSON.stringify(object))).toEqual({
      apiVersion: object.apiVersion,
      kind: object.kind,
      metadata: object.metadata,
    });
    expect(decodeHeader(JSON.stringify(object, null, 2))).toEqual({
      apiVersion: object.apiVersion,
      kind: object.kind,
      metadata: object.metadata,
    });
  });

  it("gives what there is of the three, and decodes anything else as a whole", () => {
    expect(decodeHeader('{"metadata":{"name":"a"},"x":1}')).toEqual({ metadata: { name: "a" } });
    expect(decodeHeader("[1,2]")).toEqual([1, 2]);
    expect(decodeHeader("not json")).toBe("not json");
    expect(decodeHeader('{"kind": "A", "metadata": {"name": "unterminated')).toBe(
      '{"kind": "A", "metadata": {"name": "unterminated',
    );
  });
});

/** `text` as the chunks a response may come in, cut at these byte offsets. */
const chunked = (text: string, ...cuts: number[]): Buffer[] => {
  const bytes = Buffer.from(text, "utf8");
  const at = [0, ...cuts, bytes.length];
  return at.slice(1).map((end, i) => bytes.subarray(at[i], end));
};

describe("decodeHeaderOf", () => {
  const report = (annotation: string) =>
    JSON.stringify({
      apiVersion: "wgpolicyk8s.io/v1alpha2",
      kind: "PolicyReport",
      metadata: { name: "u", namespace: "prod", annotations: { note: annotation }, resourceVersion: "42" },
      results: Array.from({ length: 60 }, (_, i) => ({ policy: `p${i}`, message: "m ü 💥".repeat(20) })),
    });

  it("gives what decodeHeader gives of the whole body, however the body is cut", () => {
    const bodies = [
      report("short"),
      // The metadata ends past the first 4,096 bytes, and a 4-byte character is cut there.
      report("x".repeat(4094) + "💥".repeat(10)),
      report("ü".repeat(3000)),
      '{"kind":"K","apiVersion":"v","metadata":12345,"x":1}',
      `{"apiVersion":"v","results":[${'"a",'.repeat(2000)}"z"],"kind":"K","metadata":{"name":"late"}}`,
      "[1,2]",
      "not json",
      '{"kind": "A", "metadata": {"name": "unterminated',
      "",
    ];
    for (const body of bodies) {
      const size = Buffer.byteLength(body);
      const expected = body === "" ? undefined : decodeHeader(body);
      for (const cuts of [[], [1], [Math.floor(size / 2)], [40, 41, 4097], [4095], [4098]]) {
        const chunks = chunked(body, ...cuts.filter((c) => c < size));
        expect(textOf(chunks)).toBe(body);
        expect(decodeHeaderOf(chunks)).toEqual(expected);
      }
    }
  });

  it("does not take a value that the prefix may cut short", () => {
    const body = '{"apiVersion":"v","kind":"K","metadata":12,"x":1}';
    expect(decodeHeaderOf(chunked(body, body.indexOf("2,")))).toEqual({
      apiVersion: "v",
      kind: "K",
      metadata: 12,
    });
  });
});
