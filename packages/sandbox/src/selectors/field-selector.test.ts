import { describe, expect, it } from "vitest";
import { COMMON_SELECTABLE_FIELDS, matchesFields, parseFieldSelector } from "./field-selector.js";

describe("field selectors", () => {
  const pod = {
    metadata: { name: "p", namespace: "ns" },
    spec: { hostNetwork: false },
    status: { phase: "Running" },
  };
  const allowed = [...COMMON_SELECTABLE_FIELDS, "status.phase", "spec.hostNetwork"];
  const matches = (text: string): boolean => {
    const parsed = parseFieldSelector(text, allowed);
    if (!parsed.ok) throw new Error(parsed.error);
    return matchesFields(parsed.selector, pod);
  };

  it("matches =, == and != on declared fields", () => {
    expect(matches("metadata.name=p")).toBe(true);
    expect(matches("metadata.name==p,metadata.namespace=ns")).toBe(true);
    expect(matches("metadata.namespace!=ns")).toBe(false);
    expect(matches("status.phase=Running,spec.hostNetwork=false")).toBe(true);
    expect(matches("")).toBe(true);
  });

  it("refuses fields the resource does not declare", () => {
    expect(parseFieldSelector("spec.nodeName=x", COMMON_SELECTABLE_FIELDS)).toEqual({
      ok: false,
      error: "field label not supported: spec.nodeName",
    });
    expect(parseFieldSelector("metadata.name", COMMON_SELECTABLE_FIELDS).ok).toBe(false);
  });
});
