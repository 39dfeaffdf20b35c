import { describe, expect, it } from "vitest";
import { decodeHeader } from "./transport-body.js";

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
