import { describe, expect, it } from "vitest";
import { createJmespath } from "./index.js";
import { evaluator } from "./testing/evaluator.js";

const { value, error } = evaluator();

describe("compare", () => {
  it("orders strings like Go's strings.Compare", () => {
    expect(value("compare('a', 'b')")).toBe(-1);
    expect(value("compare('b', 'a')")).toBe(1);
    expect(value("compare('a', 'a')")).toBe(0);
    // byte order, not UTF-16 order: U+FF5E sorts before U+1F600 in UTF-8
    expect(value("compare('\uff5e', '\u{1f600}')")).toBe(-1);
  });
  it("rejects non-strings", () => {
    expect(error("compare(`1`, 'a')")).toContain("compare()");
  });
});

describe("equal_fold", () => {
  it("compares case-insensitively", () => {
    expect(value("equal_fold('pizza', 'Pizza')")).toBe(true);
    expect(value("equal_fold('pizza', 'pIzZa')")).toBe(true);
    expect(value("equal_fold('pizza', 'APPLE')")).toBe(false);
    expect(value("equal_fold('straße', 'STRASSE')")).toBe(false);
  });
  it("rejects non-strings", () => {
    expect(error("equal_fold('a')")).toContain("Invalid arity");
  });
});

describe("replace and replace_all", () => {
  it("replaces n occurrences, all for -1", () => {
    expect(value("replace('Lorem ipsum dolor sit amet foo ipsum bar ipsum', 'ipsum', 'muspi', `2`)")).toBe(
      "Lorem muspi dolor sit amet foo muspi bar ipsum",
    );
    expect(value("replace('aaa', 'a', 'b', `-1`)")).toBe("bbb");
    expect(value("replace('ab', '', '-', `-1`)")).toBe("-a-b-");
    expect(value("replace_all('Lorem ipsum dolor sit amet', 'ipsum', 'muspi')")).toBe(
      "Lorem muspi dolor sit amet",
    );
  });
  it("requires all four arguments of replace", () => {
    expect(error("replace('a', 'a', 'b')")).toContain("Invalid arity");
  });
  it("refuses to build strings past the limit", () => {
    const small = createJmespath({ clock: { now: () => Date.now() }, maxStringLength: 100 });
    const result = small.search("replace_all(@, 'a', 'aaaaaaaaaa')", "a".repeat(20));
    expect(result).toEqual({ ok: false, error: expect.stringContaining("exceeds the limit of 100") });
  });
});

describe("to_upper / to_lower", () => {
  it("changes case", () => {
    expect(value("to_upper('abc-Ä')")).toBe("ABC-Ä");
    expect(value("to_lower('ABC-ä')")).toBe("abc-ä");
    expect(value("to_upper('straße')")).toBe("STRAßE");
  });
  it("rejects a non-string current node without crashing", () => {
    expect(error("to_upper(@)", { a: 1 })).toContain("to_upper() expected argument 1 to be type (string)");
    expect(error("to_lower(@)", [1])).toContain("to_lower()");
  });
});

describe("trim and trim_prefix", () => {
  it("trims a cutset from both ends", () => {
    expect(value("trim('¡¡¡Hello, Gophers!!!', '!¡')")).toBe("Hello, Gophers");
    expect(value("trim('foocorpcom', 'mo')")).toBe("foocorpc");
    expect(value("trim('foocorpcom', 'o')")).toBe("foocorpcom");
    expect(value("trim('foocorpcom', 'mcof')")).toBe("rp");
  });
  it("trims a prefix only when present", () => {
    expect(value("trim_prefix('docker://kubevirt/fedora-cloud-registry-disk-demo', 'docker://')")).toBe(
      "kubevirt/fedora-cloud-registry-disk-demo",
    );
    expect(value("trim_prefix('abc', 'x')")).toBe("abc");
  });
  it("rejects wrong types", () => {
    expect(error("trim('a')")).toContain("Invalid arity");
    expect(error("trim_prefix(`1`, 'a')")).toContain("trim_prefix()");
  });
});

describe("split", () => {
  it("splits like strings.Split", () => {
    expect(value("split('cat,dog,horse', ',')")).toEqual(["cat", "dog", "horse"]);
    expect(value("split('/foo/bar', '/') | [1]")).toBe("foo");
    expect(value("split('ab', '')")).toEqual(["a", "b"]);
    expect(value("split('', ',')")).toEqual([""]);
  });
  it("refuses arrays past the limit", () => {
    const small = createJmespath({ clock: { now: () => Date.now() }, maxArrayLength: 10 });
    expect(small.search("split(@, ',')", ",".repeat(20))).toMatchObject({ ok: false });
    expect(error("split(`1`, ',')")).toContain("split()");
  });
});

describe("pattern_match", () => {
  it("matches globs against strings and numbers", () => {
    expect(value("pattern_match('158-7?-4*', '158-73-417')")).toBe(true);
    expect(value("pattern_match('158-6?-3*', '158-73-417')")).toBe(false);
    expect(value("pattern_match('1*', `123`)")).toBe(true);
  });
  it("rejects objects", () => {
    expect(error("pattern_match('*', @)", { a: 1 })).toContain("pattern_match()");
  });
});

describe("label_match", () => {
  it("checks that every selector label is present with the same value", () => {
    const labels = { color: "tan", weight: "chonky", dog: "lab" };
    expect(value('label_match(`{"dog": "lab", "color": "tan"}`, @)', labels)).toBe(true);
    expect(value('label_match(`{"dog": "lab", "color": "tan"}`, @)', { color: "black", dog: "lab" })).toBe(
      false,
    );
    expect(value('label_match(`{"dog": "lab"}`, @)', { color: "tan" })).toBe(false);
  });
  it("rejects non-objects", () => {
    expect(error("label_match('a', @)", {})).toContain("label_match()");
  });
});

describe("to_boolean", () => {
  it("converts true/false in any case", () => {
    expect(value("to_boolean('true')")).toBe(true);
    expect(value("to_boolean('FalsE')")).toBe(false);
  });
  it("rejects other strings", () => {
    expect(error("to_boolean('yes')")).toBe(
      "JMESPath function 'to_boolean': lowercase argument must be 'true' or 'false' (provided: 'yes')",
    );
  });
});

describe("truncate", () => {
  it("keeps the first n bytes", () => {
    expect(value("truncate('foobar', `3`)")).toBe("foo");
    expect(value("truncate('foo', `10`)")).toBe("foo");
    expect(value("truncate('foo', `-1`)")).toBe("");
    expect(value("truncate('añb', `2`)")).toBe("a");
  });
  it("rejects a string length", () => {
    expect(error("truncate('foo', '1')")).toContain("truncate()");
  });
});

describe("path_canonicalize", () => {
  it("cleans paths like filepath.Join", () => {
    expect(value("path_canonicalize('/var//lib///kubelet')")).toBe("/var/lib/kubelet");
    expect(value("path_canonicalize('/var/run/../run/./containerd/containerd.sock')")).toBe(
      "/var/run/containerd/containerd.sock",
    );
    expect(value("path_canonicalize('a/../../b/')")).toBe("../b");
    expect(value("path_canonicalize('')")).toBe("");
  });
  it("rejects null", () => {
    expect(error("path_canonicalize(missing)", {})).toContain("path_canonicalize()");
  });
});

describe("base64", () => {
  it("encodes and decodes standard base64", () => {
    expect(value("base64_encode('hello world')")).toBe("aGVsbG8gd29ybGQ=");
    expect(value("base64_decode('aGVsbG8gd29ybGQ=')")).toBe("hello world");
    expect(value("base64_decode('bGluZTEKbGluZTI=')")).toBe("line1\nline2");
    expect(value("base64_encode('x') | base64_decode(@)")).toBe("x");
  });
  it("rejects invalid input", () => {
    expect(error("base64_decode('a$b=')")).toBe(
      "JMESPath function 'base64_decode': illegal base64 data at input byte 1",
    );
    expect(error("base64_decode('abc')")).toContain("illegal base64 data");
    expect(error("base64_encode(`1`)")).toContain("base64_encode()");
  });
});
