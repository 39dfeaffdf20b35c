import { describe, expect, it } from "vitest";
import { propagationPolicyOf, ttlDeletionTime } from "./ttl.js";

const created = Date.parse("2026-03-01T12:00:00Z");
const deleteAt = (value: string) => {
  const parsed = ttlDeletionTime(value, created);
  return parsed.ok ? new Date(parsed.deleteAtMs).toISOString() : parsed.message;
};

describe("ttlDeletionTime", () => {
  it("counts a Go duration from the creation time", () => {
    expect(deleteAt("5s")).toBe("2026-03-01T12:00:05.000Z");
    expect(deleteAt("1h30m")).toBe("2026-03-01T13:30:00.000Z");
    expect(deleteAt("1.5h")).toBe("2026-03-01T13:30:00.000Z");
    expect(deleteAt("0")).toBe("2026-03-01T12:00:00.000Z");
  });

  it("reads upstream's absolute formats as UTC", () => {
    expect(deleteAt("2026-10-04T003000Z")).toBe("2026-10-04T00:30:00.000Z");
    expect(deleteAt("2026-10-04")).toBe("2026-10-04T00:00:00.000Z");
  });

  it("reports anything else instead of guessing", () => {
    for (const bad of ["1d", "5", "tomorrow", "2026-02-30", "2026-10-04T25000Z", "2026-1-4", ""])
      expect(deleteAt(bad)).toContain(`invalid value "${bad}" of label cleanup.kyverno.io/ttl`);
  });
});

describe("propagationPolicyOf", () => {
  it("reads the annotation and reports an unknown value", () => {
    expect(propagationPolicyOf({ "cleanup.kyverno.io/propagation-policy": "Foreground" })).toEqual({
      policy: "Foreground",
    });
    expect(propagationPolicyOf(undefined)).toEqual({ policy: undefined });
    expect(propagationPolicyOf({ "cleanup.kyverno.io/propagation-policy": "Later" }).problem).toContain(
      'unknown propagation policy "Later"',
    );
  });
});
