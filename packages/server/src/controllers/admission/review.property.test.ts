/**
 * Property-based tests of AdmissionReview parsing (fast-check): any body — random text, JSON of any
 * shape, a valid review with fields replaced, truncated or with junk appended — parses to `ok` or to
 * a bounded message, never an exception; a parsed review always has the uid the body carried.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { review } from "../../testing/fixtures.js";
import { parseAdmissionReview, sniffUid } from "./review.js";

const base = review({});

/** A valid review with one field (at any depth of `request`) replaced by an arbitrary JSON value. */
const mutated = fc
  .tuple(
    fc.constantFrom(
      "apiVersion",
      "kind",
      "request",
      "request.uid",
      "request.kind",
      "request.kind.kind",
      "request.operation",
      "request.object",
      "request.oldObject",
      "request.userInfo",
      "request.userInfo.groups",
      "request.namespace",
      "request.dryRun",
      "request.resource",
      "request.requestKind",
      "request.object.metadata",
    ),
    fc.jsonValue({ maxDepth: 3 }),
  )
  .map(([path, value]) => {
    const copy = structuredClone(base) as unknown as Record<string, unknown>;
    const keys = path.split(".");
    let at: Record<string, unknown> = copy;
    for (const key of keys.slice(0, -1)) {
      const next = at[key];
      if (typeof next !== "object" || next === null) return JSON.stringify(copy);
      at = next as Record<string, unknown>;
    }
    at[keys.at(-1) as string] = value;
    return JSON.stringify(copy);
  });

const bodies = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.string({ unit: "binary", maxLength: 200 }),
  fc.json({ maxDepth: 4 }),
  mutated,
  fc.tuple(fc.constant(JSON.stringify(base)), fc.nat()).map(([t, n]) => t.slice(0, n % t.length)),
  fc.tuple(fc.constant(JSON.stringify(base)), fc.string({ maxLength: 20 })).map(([t, s]) => t + s),
);

describe("AdmissionReview parsing properties", () => {
  it("never throws; a refusal has a bounded message, an acceptance the body's uid", () => {
    fc.assert(
      fc.property(bodies, (body) => {
        const parsed = parseAdmissionReview(body);
        if (parsed.ok) {
          expect(typeof parsed.review.request.uid).toBe("string");
          expect(body).toContain(parsed.review.request.uid);
        } else {
          expect(typeof parsed.message).toBe("string");
          expect(parsed.message.length).toBeLessThan(2_000);
          if (parsed.uid !== undefined) expect(body).toContain(parsed.uid);
        }
        const sniffed = sniffUid(body);
        if (sniffed !== undefined) expect(body).toContain(sniffed);
      }),
      { numRuns: 3_000, interruptAfterTimeLimit: 8_000 },
    );
  });

  it("answers deeply nested and huge bodies without a stack overflow", () => {
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    const nestedObject = JSON.stringify({
      ...base,
      request: {
        ...(base.request as object),
        object: JSON.parse(`${'{"a":'.repeat(5_000)}1${"}".repeat(5_000)}`),
      },
    });
    for (const body of [deep, nestedObject, "{".repeat(1_000_000)]) {
      const parsed = parseAdmissionReview(body);
      expect(typeof parsed.ok).toBe("boolean");
    }
  });
});
