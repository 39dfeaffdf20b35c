import { describe, expect, test } from "vitest";
import { formatLoadError, formatPath, toLoadErrors } from "./errors.js";

describe("formatPath", () => {
  test("writes keys with dots and indexes in brackets, quoting odd keys", () => {
    expect(formatPath(["spec", "rules", 0, "validate", "pattern"])).toBe("spec.rules[0].validate.pattern");
    expect(formatPath(["metadata", "annotations", "policies.kyverno.io/title"])).toBe(
      'metadata.annotations["policies.kyverno.io/title"]',
    );
    expect(formatPath([])).toBe("");
  });
});

describe("formatLoadError", () => {
  test("names file, line, 1-based document and path", () => {
    const e = {
      code: "unknown-field",
      file: "policies/bad.yaml",
      document: 1,
      line: 12,
      path: "spec.rules[0].validate",
      message: 'unknown field "patern"',
    } as const;
    expect(formatLoadError(e)).toBe(
      'policies/bad.yaml:12 (document 2): spec.rules[0].validate: unknown field "patern"',
    );
  });

  test("leaves out what is unknown", () => {
    expect(formatLoadError({ code: "yaml-syntax", file: "a.yaml", path: "", message: "bad" })).toBe(
      "a.yaml: bad",
    );
  });
});

describe("toLoadErrors", () => {
  test("splits warnings from errors and locates the key of an unknown field", () => {
    const located: unknown[] = [];
    const { errors, warnings } = toLoadErrors(
      [
        { code: "unknown-field", path: ["spec"], key: "x", message: "m" },
        { code: "deprecated", path: ["spec"], message: "w", warning: true },
      ],
      {
        file: "f",
        document: 0,
        locate: (p) => {
          located.push(p);
          return 7;
        },
      },
    );
    expect(errors).toEqual([
      { code: "unknown-field", file: "f", document: 0, path: "spec", line: 7, message: "m" },
    ]);
    expect(warnings).toHaveLength(1);
    expect(located[0]).toEqual(["spec", "x"]);
  });
});
