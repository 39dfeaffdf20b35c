import { describe, expect, test } from "vitest";
import { parse } from "yaml";
import { formatLoadError, type LoadError } from "../load/errors.js";
import { parseDocuments } from "../load/parse.js";
import { loadPolicy } from "./load.js";
import type { JsonObject, JsonValue } from "./types.js";

const BASE = `
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: require-labels
spec:
  rules:
  - name: check-team
    match:
      any:
      - resources:
          kinds: [Pod]
    validate:
      message: label team is required
      pattern:
        metadata:
          labels:
            team: "?*"
`;

function base(): JsonObject {
  return parse(BASE) as JsonObject;
}

/** The base policy with `edit` applied to a copy (the YAML parser gives plain JSON). */
function policyWith(
  edit: (p: { spec: { rules: JsonObject[] } & JsonObject } & JsonObject) => void,
): JsonValue {
  const p = base() as { spec: { rules: JsonObject[] } & JsonObject } & JsonObject;
  edit(p);
  return p;
}

function errorsOf(value: JsonValue): string[] {
  const r = loadPolicy(value, { file: "p.yaml" });
  return r.ok ? [] : r.errors.map((e) => `${e.path}: ${e.message}`);
}

describe("loadPolicy", () => {
  test("loads a valid policy and applies upstream defaults", () => {
    const r = loadPolicy(base(), { file: "p.yaml" });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.warnings).toEqual([]);
    const { rules, ...spec } = r.value.spec;
    expect(spec).toEqual({
      applyRules: "All",
      validationFailureAction: "Audit",
      background: true,
      admission: true,
      emitWarning: false,
      failurePolicy: "Fail",
    });
    expect(rules[0]?.validate?.pattern).toEqual({ metadata: { labels: { team: "?*" } } });
  });

  test("keeps explicit settings", () => {
    const r = loadPolicy(
      policyWith((p) =>
        Object.assign(p.spec, { background: false, applyRules: "One", failurePolicy: "Ignore" }),
      ),
      { file: "p.yaml" },
    );
    expect(r.ok && [r.value.spec.background, r.value.spec.applyRules, r.value.spec.failurePolicy]).toEqual([
      false,
      "One",
      "Ignore",
    ]);
  });

  test("normalises lower-case failure actions, with a deprecation warning", () => {
    const r = loadPolicy(
      policyWith((p) => {
        p.spec.validationFailureAction = "enforce";
        p.spec.validationFailureActionOverrides = [{ action: "audit", namespaces: ["dev"] }];
      }),
      { file: "p.yaml" },
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.spec.validationFailureAction).toBe("Enforce");
    expect(r.value.spec.validationFailureActionOverrides?.[0]?.action).toBe("Audit");
    expect(r.warnings.map((w) => [w.code, w.path])).toEqual([
      ["deprecated", "spec.validationFailureAction"],
      ["deprecated", "spec.validationFailureActionOverrides[0].action"],
    ]);
  });

  test("rejects invalid enum values", () => {
    expect(errorsOf(policyWith((p) => (p.spec.validationFailureAction = "Warn")))).toEqual([
      'spec.validationFailureAction: invalid value "Warn": must be one of "Audit", "Enforce"',
    ]);
    expect(errorsOf(policyWith((p) => (p.spec.applyRules = "all")))).toEqual([
      'spec.applyRules: invalid value "all": must be one of "All", "One"',
    ]);
    expect(
      errorsOf(policyWith((p) => ((p.spec.rules[0]?.validate as JsonObject).failureAction = "audit"))),
    ).toEqual([
      'spec.rules[0].validate.failureAction: invalid value "audit": must be one of "Audit", "Enforce"',
    ]);
  });

  test("reports unknown fields with their path", () => {
    const v = policyWith((p) => {
      const validate = p.spec.rules[0]?.validate as JsonObject;
      validate.patern = validate.pattern ?? null;
      delete validate.pattern;
    });
    expect(errorsOf(v)).toEqual(['spec.rules[0].validate: unknown field "patern" (did you mean "pattern"?)']);
  });

  test("reports wrong types", () => {
    expect(errorsOf(policyWith((p) => (p.spec.background = "yes")))).toEqual([
      "spec.background: expected boolean, got string",
    ]);
    expect(errorsOf(policyWith((p) => (p.spec.rules = {} as unknown as JsonObject[])))).toEqual([
      "spec.rules: expected array, got object",
    ]);
  });

  test("requires a name", () => {
    expect(errorsOf(policyWith((p) => (p.metadata = {})))).toEqual([
      'metadata: missing required field "name"',
    ]);
    expect(errorsOf(policyWith((p) => delete p.spec.rules[0]?.name))).toEqual([
      'spec.rules[0]: missing required field "name"',
    ]);
    expect(errorsOf(policyWith((p) => (p.metadata = { name: "x".repeat(64) })))).toEqual([
      "metadata.name: name must be no more than 63 characters",
    ]);
  });

  test("accepts kyverno.io/v2beta1, which has only any/all in match and typed conditions", () => {
    const v2 = policyWith((p) => {
      p.apiVersion = "kyverno.io/v2beta1";
      p.spec.rules[0]!.preconditions = {
        all: [{ key: "{{request.operation}}", operator: "AnyIn", value: ["CREATE"] }],
      };
    });
    const r = loadPolicy(v2, { file: "p.yaml" });
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.value.apiVersion).toBe("kyverno.io/v2beta1");
    const legacy = policyWith((p) => {
      p.apiVersion = "kyverno.io/v2beta1";
      p.spec.rules[0]!.match = { resources: { kinds: ["Pod"] } };
    });
    expect(errorsOf(legacy)).toEqual(['spec.rules[0].match: unknown field "resources"']);
    const oldOperator = policyWith((p) => {
      p.apiVersion = "kyverno.io/v2beta1";
      p.spec.rules[0]!.preconditions = [{ key: "a", operator: "Equals", value: "a" }];
    });
    expect(errorsOf(oldOperator)).toEqual(["spec.rules[0].preconditions: expected object, got array"]);
  });

  test("v1 accepts the legacy condition list and fills a missing key with null", () => {
    const r = loadPolicy(
      policyWith((p) => (p.spec.rules[0]!.preconditions = [{ operator: "Equals", value: "x" }])),
      { file: "p.yaml" },
    );
    expect(r.ok && r.value.spec.rules[0]?.preconditions).toEqual([
      { key: null, operator: "Equals", value: "x" },
    ]);
  });

  test("rejects other kinds and versions", () => {
    expect(errorsOf(policyWith((p) => (p.apiVersion = "kyverno.io/v2")))).toEqual([
      'apiVersion: unsupported apiVersion "kyverno.io/v2" for ClusterPolicy: use kyverno.io/v1 or kyverno.io/v2beta1',
    ]);
    expect(errorsOf({ apiVersion: "v1", kind: "Pod" })).toEqual([
      'kind: expected kind ClusterPolicy or Policy, got "Pod"',
    ]);
    expect(errorsOf("x")).toEqual([": expected a ClusterPolicy or Policy object"]);
  });

  test("names file, document, path and line, for an error in the second document", () => {
    const text = `${BASE}---\n${BASE.replace("      pattern:", "      patern:")}`;
    const parsed = parseDocuments(text, "policies/bad.yaml");
    const errors: LoadError[] = [];
    for (const doc of parsed.documents) {
      const r = loadPolicy(doc.value, {
        file: "policies/bad.yaml",
        document: doc.document,
        locate: doc.locate,
      });
      if (!r.ok) errors.push(...r.errors);
    }
    expect(parsed.documents).toHaveLength(2);
    expect(errors.map(formatLoadError)).toEqual([
      'policies/bad.yaml:34 (document 2): spec.rules[0].validate: unknown field "patern" (did you mean "pattern"?)',
    ]);
  });

  test("does not modify its input", () => {
    const input = base();
    const copy = structuredClone(input);
    loadPolicy(input, { file: "p.yaml" });
    expect(input).toEqual(copy);
  });
});
