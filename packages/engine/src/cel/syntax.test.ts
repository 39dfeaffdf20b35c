import { describe, expect, it } from "vitest";
import { rewriteOptionalSyntax } from "./syntax.js";

describe("rewriteOptionalSyntax", () => {
  it("leaves expressions without optional syntax unchanged", () => {
    expect(rewriteOptionalSyntax("a ? b : c")).toBe("a ? b : c");
    expect(rewriteOptionalSyntax("object.spec.containers.all(c, c.name != '')")).toBe(
      "object.spec.containers.all(c, c.name != '')",
    );
  });

  it("rewrites optional field selection and optional index", () => {
    expect(rewriteOptionalSyntax("object.spec.?replicas.orValue(1)")).toBe(
      'object.spec.optSelect__("replicas").orValue(1)',
    );
    expect(rewriteOptionalSyntax("m[?'k'].orValue(0)")).toBe("m.optIndex__('k').orValue(0)");
  });

  it("keeps strings and ternaries intact", () => {
    expect(rewriteOptionalSyntax("x.?a.orValue('.?b') == 'c' ? 1 : 2")).toBe(
      "x.optSelect__(\"a\").orValue('.?b') == 'c' ? 1 : 2",
    );
  });

  it("wraps optional list elements and map entries", () => {
    expect(rewriteOptionalSyntax("[?a, b]")).toBe("optList__([optEntry__(a), b])");
    expect(rewriteOptionalSyntax("{?'k': v, 'x': 1}")).toBe("optMap__({'k':optEntry__( v), 'x': 1})");
  });
});
