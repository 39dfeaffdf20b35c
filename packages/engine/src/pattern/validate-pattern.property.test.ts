/**
 * Property-based tests of the pattern / anchor matcher (fast-check): for any resource and any pattern
 * built from the anchors, operators and wildcards patterns use, validation returns one of the four
 * outcomes — it never throws, never hangs, and its message stays bounded. Runs are bounded (a few
 * seconds); a failure prints the shrunk counterexample and its seed.
 */
import type { JsonValue } from "@kyverno-ts/api";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { validatePattern } from "./validate-pattern.js";

const KEYS = ["name", "image", "spec", "containers", "securityContext", "labels", "app", "x", "runAsNonRoot"];
const ANCHORED = fc.oneof(
  fc.constantFrom(...KEYS),
  fc.constantFrom(...KEYS).map((k) => `(${k})`),
  fc.constantFrom(...KEYS).map((k) => `=(${k})`),
  fc.constantFrom(...KEYS).map((k) => `^(${k})`),
  fc.constantFrom(...KEYS).map((k) => `X(${k})`),
  fc.constantFrom(...KEYS).map((k) => `<(${k})`),
  fc.constantFrom(...KEYS).map((k) => `+(${k})`),
  fc.string({ maxLength: 8 }),
);
/** Scalars patterns hold: operators, wildcards, ranges, quantities, durations, alternatives, junk. */
const PATTERN_SCALAR = fc.oneof(
  fc.constantFrom(
    "*",
    "?*",
    "!*",
    "nginx:*",
    ">1",
    "<=2Gi",
    "!null",
    "null",
    "1-10",
    "1!-10",
    "5m",
    "a | b",
    "!a & !b",
    ">1h & <2h",
    "{{ request.object.metadata.name }}",
    "$(./../name)",
    "$(../../spec)",
    "",
    ">",
    "!",
    "|",
    "*-*",
  ),
  fc.string({ maxLength: 12 }),
  fc.integer(),
  fc.double({ noNaN: false }),
  fc.boolean(),
  fc.constant(null),
);
const RESOURCE_SCALAR = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom("nginx:1.2", "100Mi", "2Gi", "30s", "true", ""),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
);

const tree = (keys: fc.Arbitrary<string>, scalar: fc.Arbitrary<JsonValue>) =>
  fc.letrec<{ node: JsonValue }>((tie) => ({
    node: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      scalar,
      fc.array(tie("node"), { maxLength: 4 }),
      fc.dictionary(keys, tie("node"), { maxKeys: 5 }),
    ),
  })).node;

const patterns = tree(ANCHORED, PATTERN_SCALAR);
const resources = tree(fc.constantFrom(...KEYS), RESOURCE_SCALAR);

describe("pattern matcher properties", () => {
  it("returns pass, fail, skip or error for any resource and pattern, without throwing", () => {
    fc.assert(
      fc.property(resources, patterns, (resource, pattern) => {
        const result = validatePattern(resource, pattern);
        expect(["pass", "fail", "skip", "error"]).toContain(result.status);
        if (result.status !== "pass") {
          expect(typeof result.message).toBe("string");
          // Bounded output: a message never grows with repeated anchors or nesting beyond reason.
          expect(result.message.length).toBeLessThan(100_000);
        }
      }),
      { numRuns: 2_000, interruptAfterTimeLimit: 8_000 },
    );
  });

  it("passes a resource of maps and plain scalars against itself as the pattern", () => {
    const plain = fc.letrec<{ node: JsonValue }>((tie) => ({
      node: fc.oneof(
        { depthSize: "small" },
        fc.stringMatching(/^[a-z][a-z0-9]{0,7}$/),
        fc.integer({ min: 0, max: 1000 }),
        fc.boolean(),
        fc.dictionary(fc.constantFrom(...KEYS), tie("node"), { maxKeys: 4 }),
      ),
    })).node;
    fc.assert(
      fc.property(plain, (resource) => {
        expect(validatePattern(resource, resource)).toEqual({ status: "pass" });
      }),
      { numRuns: 1_000, interruptAfterTimeLimit: 5_000 },
    );
  });

  it("handles deep nesting (depth 2,000) and wide lists (20,000) without a stack overflow or hang", () => {
    let deep: JsonValue = "x";
    let deepPattern: JsonValue = "?*";
    for (let i = 0; i < 2_000; i++) {
      deep = { spec: deep };
      deepPattern = { "(spec)": deepPattern };
    }
    const wide = {
      containers: Array.from({ length: 20_000 }, (_, i) => ({ name: `c${i}`, image: "nginx" })),
    };
    const started = Date.now();
    const widePattern: JsonValue = { containers: [{ "=(image)": "!*:latest", name: "c*" }] };
    const cases: [JsonValue, JsonValue][] = [
      [deep, deepPattern],
      [wide, widePattern],
    ];
    for (const [resource, pattern] of cases) {
      const result = validatePattern(resource, pattern);
      expect(["pass", "fail", "skip", "error"]).toContain(result.status);
    }
    expect(Date.now() - started).toBeLessThan(60_000); // a hang, not a speed check
  });
});
