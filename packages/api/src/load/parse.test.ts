import { describe, expect, test } from "vitest";
import { formatLoadError } from "./errors.js";
import { parseDocuments } from "./parse.js";

describe("parseDocuments", () => {
  test("splits documents, skipping empty ones but keeping their index", () => {
    const r = parseDocuments("a: 1\n---\n---\n# only a comment\n---\nb: 2\n", "f.yaml");
    expect(r.errors).toEqual([]);
    expect(r.documents.map((d) => [d.document, d.value, d.line])).toEqual([
      [0, { a: 1 }, 1],
      [3, { b: 2 }, 6],
    ]);
  });

  test("a leading --- and comments do not add a document", () => {
    const r = parseDocuments("# header\n---\nkind: Pod\n", "f.yaml");
    expect(r.documents.map((d) => d.document)).toEqual([0]);
  });

  test("resolves scalars as Kubernetes does", () => {
    const text = [
      'quoted: "0755"',
      "octal: 0755",
      "octal12: 0o17",
      "hex: 0x1F",
      "underscores: 1_000",
      "time: 2021-07-07T22:02:39Z",
      "date: 2001-12-14",
      "sexagesimal: 1:20",
      "yes: yes",
      "on: on",
      "y: y",
      "bool: True",
      "float: 1e3",
      "big: 12345678901234567890",
      "nothing: ~",
    ].join("\n");
    const [doc] = parseDocuments(text, "f.yaml").documents;
    expect(doc?.value).toEqual({
      quoted: "0755",
      octal: 493,
      octal12: 15,
      hex: 31,
      underscores: 1000,
      time: "2021-07-07T22:02:39Z",
      date: "2001-12-14",
      sexagesimal: "1:20",
      yes: "yes",
      on: "on",
      y: "y",
      bool: true,
      float: 1000,
      big: 12345678901234567000,
      nothing: null,
    });
  });

  test("supports anchors and merge keys", () => {
    const [doc] = parseDocuments("base: &b {x: 1}\nuse:\n  <<: *b\n  y: 2\n", "f.yaml").documents;
    expect(doc?.value).toEqual({ base: { x: 1 }, use: { x: 1, y: 2 } });
  });

  test("reports malformed YAML with document and line, and keeps the other documents", () => {
    const r = parseDocuments("a: 1\n---\nb: [1, 2\n---\nc: 3\n", "bad.yaml");
    expect(r.documents.map((d) => d.value)).toEqual([{ a: 1 }, { c: 3 }]);
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toMatchObject({ code: "yaml-syntax", file: "bad.yaml", document: 1, path: "" });
    expect(r.errors[0]?.line).toBeGreaterThanOrEqual(3);
    expect(formatLoadError(r.errors[0]!)).toMatch(/^bad\.yaml:\d+ \(document 2\): /);
  });

  test("reports a bad indentation on its line", () => {
    const r = parseDocuments("spec:\n  rules:\n  - name: a\n     match: {}\n", "bad.yaml");
    expect(r.errors[0]).toMatchObject({ code: "yaml-syntax", document: 0, line: 3 });
  });

  test("one mistake is one error: the parser's follow-on errors on the same document are only counted", () => {
    const r = parseDocuments("a:\n\t b\n---\nc: 1\n", "tabs.yaml");
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]?.message).toBe(
      "Tabs are not allowed as indentation (1 more syntax error after it in this document)",
    );
    expect(r.documents.map((d) => d.value)).toEqual([{ c: 1 }]);
  });

  test("duplicate keys are warnings and the last value wins", () => {
    const r = parseDocuments("a: 1\na: 2\n", "f.yaml");
    expect(r.errors).toEqual([]);
    expect(r.documents[0]?.value).toEqual({ a: 2 });
    expect(r.warnings[0]).toMatchObject({ code: "duplicate-key", line: 2 });
  });

  test("values without a JSON form are errors", () => {
    const r = parseDocuments("a: .inf\n", "f.yaml");
    expect(r.documents).toEqual([]);
    expect(r.errors[0]).toMatchObject({ code: "not-json", path: "a", line: 1 });
  });

  test("reads JSON, with lines found on demand", () => {
    const r = parseDocuments(
      '{\n  "spec": {\n    "rules": [\n      {"name": "x"}\n    ]\n  }\n}\n',
      "f.json",
    );
    expect(r.documents[0]?.value).toEqual({ spec: { rules: [{ name: "x" }] } });
    expect(r.documents[0]?.locate(["spec", "rules", 0, "name"])).toBe(4);
  });

  test("locate finds the line of a key, or of the closest existing parent", () => {
    const [doc] = parseDocuments(
      "spec:\n  rules:\n  - name: a\n    validate:\n      pattern: {}\n",
      "f.yaml",
    ).documents;
    expect(doc?.locate(["spec", "rules", 0, "validate", "pattern"])).toBe(5);
    expect(doc?.locate(["spec", "rules", 0, "validate", "missing"])).toBe(4);
    expect(doc?.locate([])).toBe(1);
  });

  test("a file of only comments has no documents", () => {
    expect(parseDocuments("# nothing\n", "f.yaml")).toEqual({ documents: [], errors: [], warnings: [] });
  });
});

test("an alias bomb is an error, not a hang", () => {
  const lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"];
  for (let i = 1; i < 12; i++)
    lines.push(
      `${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(10)
        .fill(`*${String.fromCharCode(96 + i)}`)
        .join(", ")}]`,
    );
  const r = parseDocuments(lines.join("\n"), "bomb.yaml");
  expect(r.documents).toEqual([]);
  expect(r.errors[0]?.code).toBe("yaml-syntax");
});

test("an anchor used inside itself is an error naming the path, not a stack overflow", () => {
  for (const text of ["&a [*a, *a]", "spec: &s\n  rules: *s\n"]) {
    const r = parseDocuments(text, "cycle.yaml");
    expect(r.documents).toEqual([]);
    expect(r.errors).toMatchObject([
      { code: "not-json", message: "a recursive alias (an anchor used inside itself) has no JSON form" },
    ]);
  }
  expect(parseDocuments("spec: &s\n  rules: *s\n", "cycle.yaml").errors[0]?.path).toBe("spec.rules");
});
