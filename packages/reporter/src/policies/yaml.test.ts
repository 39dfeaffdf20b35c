import { parseDocuments } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { toYaml, type YamlValue } from "./yaml.js";

const parse = (text: string): unknown => parseDocuments(text, "test.yaml").documents[0]?.value;

describe("toYaml", () => {
  it("prints a policy as kubectl does, in block style", () => {
    const yaml = toYaml({
      apiVersion: "kyverno.io/v1",
      kind: "ClusterPolicy",
      metadata: { name: "disallow-latest-tag", labels: {} },
      spec: {
        background: true,
        rules: [
          {
            name: "require-image-tag",
            match: { any: [{ resources: { kinds: ["Pod"] } }] },
            validate: {
              message: "An image tag is required.",
              pattern: { spec: { containers: [{ image: "*:*" }] } },
            },
          },
        ],
      },
    });
    expect(yaml).toBe(
      [
        "apiVersion: kyverno.io/v1",
        "kind: ClusterPolicy",
        "metadata:",
        "  name: disallow-latest-tag",
        "  labels: {}",
        "spec:",
        "  background: true",
        "  rules:",
        "    - name: require-image-tag",
        "      match:",
        "        any:",
        "          - resources:",
        "              kinds:",
        "                - Pod",
        "      validate:",
        "        message: An image tag is required.",
        "        pattern:",
        "          spec:",
        "            containers:",
        '              - image: "*:*"',
        "",
      ].join("\n"),
    );
  });

  it("quotes what would change type or meaning, and parses back to the same value", () => {
    const value: YamlValue = {
      strings: [
        "true",
        "No",
        "null",
        "~",
        "1.20",
        "0x1F",
        "1e3",
        "2024-01-01",
        "10:30",
        "",
        " padded ",
        "a: b",
        "x #y",
        "ends:",
        "- item",
        "{{ request.object.metadata.name }}",
        "*:*",
        "&anchor",
        "!tag",
        "tab\there",
        "nginx:1.25",
        "?(x)",
        "=(spec)",
        "<(name)",
        "ünïcødé",
        "back\\slash",
        'say "hi"',
        "it's",
      ],
      "key: with colon": 1,
      "(name)": "anchor key",
      numbers: [0, -1.5, 42],
      flags: [true, false, null],
      empty: { list: [], map: {} },
      nested: [[1, 2], [], [{ a: 1 }]],
      multiline: "line one\nline two\n",
      noTrailing: "a\nb",
      manyTrailing: "a\n\n\n",
      indentedFirst: "  indented\nnext\n",
      blankFirst: "\n\nthird\n",
      control: "bell\u0007\nline",
    };
    expect(parse(toYaml(value))).toEqual(value);
  });

  it("writes multi-line strings as literal blocks", () => {
    expect(toYaml({ message: "first\nsecond\n" })).toBe("message: |\n  first\n  second\n");
    expect(toYaml({ message: "first\nsecond" })).toBe("message: |-\n  first\n  second\n");
    expect(toYaml([{ deny: { message: "a\nb" } }])).toBe("- deny:\n    message: |-\n      a\n      b\n");
  });

  it("prints scalars and empty collections on their own", () => {
    expect(toYaml("plain")).toBe("plain\n");
    expect(toYaml({})).toBe("{}\n");
    expect(toYaml([])).toBe("[]\n");
  });
});
