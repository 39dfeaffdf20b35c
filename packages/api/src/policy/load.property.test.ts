/**
 * Property-based tests of policy loading (fast-check): any file text and any ClusterPolicy with a
 * field replaced by an arbitrary value loads to a policy or to errors naming a path — never an
 * exception, never a hang — and the error list stays bounded.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseDocuments } from "../load/parse.js";
import type { JsonValue } from "./json.js";
import { loadPolicy } from "./load.js";

const VALID = {
  apiVersion: "kyverno.io/v1",
  kind: "ClusterPolicy",
  metadata: { name: "require-labels" },
  spec: {
    validationFailureAction: "Enforce",
    background: true,
    rules: [
      {
        name: "check-team",
        match: { any: [{ resources: { kinds: ["Pod"] } }] },
        validate: { message: "label 'team' is required", pattern: { metadata: { labels: { team: "?*" } } } },
      },
    ],
  },
} as const;

const PATHS = [
  "apiVersion",
  "kind",
  "metadata",
  "metadata.name",
  "spec",
  "spec.rules",
  "spec.validationFailureAction",
  "spec.background",
  "spec.failurePolicy",
  "spec.webhookTimeoutSeconds",
  "spec.rules.0",
  "spec.rules.0.name",
  "spec.rules.0.match",
  "spec.rules.0.match.any",
  "spec.rules.0.match.any.0.resources",
  "spec.rules.0.match.any.0.resources.kinds",
  "spec.rules.0.validate",
  "spec.rules.0.validate.pattern",
  "spec.rules.0.validate.message",
  "spec.rules.0.validate.foreach",
  "spec.rules.0.validate.anyPattern",
  "spec.rules.0.validate.deny",
  "spec.rules.0.context",
  "spec.rules.0.preconditions",
  "spec.rules.0.mutate",
  "spec.rules.0.generate",
];

const mutated = fc
  .tuple(fc.constantFrom(...PATHS), fc.jsonValue({ maxDepth: 3 }))
  .map(([path, value]): JsonValue => {
    const copy = structuredClone(VALID) as unknown as Record<string, unknown>;
    const keys = path.split(".");
    let at: Record<string, unknown> = copy;
    for (const key of keys.slice(0, -1)) {
      const next = at[key];
      if (typeof next !== "object" || next === null) return copy as JsonValue;
      at = next as Record<string, unknown>;
    }
    at[keys.at(-1) as string] = value;
    return copy as JsonValue;
  });

const check = (value: JsonValue) => {
  const loaded = loadPolicy(value, { file: "policy.yaml" });
  if (loaded.ok) {
    expect(["ClusterPolicy", "Policy"]).toContain(loaded.value.kind);
    expect(Array.isArray(loaded.value.spec.rules)).toBe(true);
  } else {
    expect(loaded.errors.length).toBeGreaterThan(0);
    expect(loaded.errors.length).toBeLessThan(1_000);
    for (const error of loaded.errors) expect(typeof error.message).toBe("string");
  }
};

describe("policy loading properties", () => {
  it("loads the unmodified policy", () => {
    expect(loadPolicy(structuredClone(VALID) as unknown as JsonValue, { file: "policy.yaml" }).ok).toBe(true);
  });

  it("answers a policy with any field replaced by any value with the policy or errors, never an exception", () => {
    fc.assert(fc.property(mutated, check), { numRuns: 2_000, interruptAfterTimeLimit: 8_000 });
  });

  it("answers any JSON value and any file text with errors, never an exception", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (value) => check(value as JsonValue)),
      {
        numRuns: 1_000,
        interruptAfterTimeLimit: 4_000,
      },
    );
    const texts = fc.oneof(
      fc.string({ maxLength: 300 }),
      fc.constantFrom("&a [*a, *a]", "a: &x [*x]", "--- !!binary x", "? [a]\n: b", "key: [[[[[["),
      fc.tuple(fc.constant(JSON.stringify(VALID)), fc.nat()).map(([t, n]) => t.slice(0, n % t.length)),
    );
    fc.assert(
      fc.property(texts, (text) => {
        const parsed = parseDocuments(text, "policy.yaml");
        for (const document of parsed.documents) check(document.value);
      }),
      { numRuns: 1_000, interruptAfterTimeLimit: 4_000 },
    );
  });
});
