import { describe, expect, it } from "vitest";
import { createJmespath } from "./index.js";
import { evaluator } from "./testing/evaluator.js";

const { value, error } = evaluator();

describe("regex_replace_all", () => {
  it("expands $1 and the braced group form like Go", () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a Go replacement template, not a JS one
    expect(value("regex_replace_all('([0-9])([0-9])', 'hello im 42 months old', '${1}1')")).toBe(
      "hello im 41 months old",
    );
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a Go replacement template, not a JS one
    expect(value("regex_replace_all('([0-9])([0-9])', @, '${1}0')", "days_37")).toBe("days_30");
    expect(
      value("regex_replace_all('^docker.io/(.*)$', 'docker.io/nginx:latest', 'harbor.corp.org/$1')"),
    ).toBe("harbor.corp.org/nginx:latest");
    // $1x is the (missing) group named "1x"; $$ is a literal dollar
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a Go replacement template, not a JS one
    expect(value("regex_replace_all('(a)', 'a', '[$1x|$$|${1}x]')")).toBe("[|$|ax]");
    expect(value("regex_replace_all('(?P<word>b+)', 'abbc', '<$word>')")).toBe("a<bb>c");
  });
  it("follows Go's empty-match rules", () => {
    expect(value("regex_replace_all('a*', 'baaac', '-')")).toBe("-b-c-");
  });
  it("accepts numbers for the source and replacement", () => {
    expect(value("regex_replace_all('4', `1.4`, `2`)")).toBe("1.2");
  });
  it("reports invalid patterns and types", () => {
    expect(error("regex_replace_all('(', 'a', 'b')")).toBe(
      "JMESPath function 'regex_replace_all': error parsing regexp: missing closing ): `(`",
    );
    expect(error("regex_replace_all('a', @, 'b')", { a: 1 })).toContain("regex_replace_all()");
  });
  it("bounds the output", () => {
    const small = createJmespath({ clock: { now: () => Date.now() }, maxStringLength: 50 });
    expect(small.search("regex_replace_all('a', @, '$0$0$0$0$0')", "a".repeat(20))).toMatchObject({
      ok: false,
    });
  });
});

describe("regex_replace_all_literal", () => {
  it("replaces without expanding", () => {
    expect(value("regex_replace_all_literal('^(\\d{3}-?\\d{2}-?\\d{4})$', '123-45-6789', 'redacted')")).toBe(
      "redacted",
    );
    expect(value("regex_replace_all_literal('^[^/]+', 'docker.io/nginx', 'myregistry.corp.com')")).toBe(
      "myregistry.corp.com/nginx",
    );
    expect(value("regex_replace_all_literal('a', 'a', '$1')")).toBe("$1");
  });
  it("reports invalid patterns", () => {
    expect(error("regex_replace_all_literal('[', 'a', 'b')")).toContain("error parsing regexp");
  });
});

describe("regex_match", () => {
  it("matches strings and numbers with RE2 syntax", () => {
    expect(value("regex_match('^[1-7]$', `1`)")).toBe(true);
    expect(value("regex_match('^[1-7]$', '1')")).toBe(true);
    expect(value("regex_match('^[1-7]$', '8')")).toBe(false);
    expect(value("regex_match('(?i)^ABC', 'abcdef')")).toBe(true);
    expect(value("regex_match('(?P<n>x)y', 'axyz')")).toBe(true);
  });
  it("stays linear on patterns that make backtracking engines explode", () => {
    const started = Date.now();
    expect(value("regex_match('^(a+)+$', @)", `${"a".repeat(5000)}b`)).toBe(false);
    expect(Date.now() - started).toBeLessThan(2000);
  });
  it("rejects backreferences (not RE2) and bad types", () => {
    expect(error("regex_match('(a)\\1', 'aa')")).toContain("regex_match");
    expect(error("regex_match('a', @)", [1])).toContain("regex_match()");
  });
});

describe("random", () => {
  it("generates strings that match the pattern", () => {
    for (const pattern of [
      "[0-9a-z]{5}",
      "[A-Z0-9]{8}-[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{12}",
      "(foo|bar)\\d+x?",
      "[^a-z]{3}",
    ]) {
      const generated = value(`random('${pattern}')`);
      expect(typeof generated).toBe("string");
      expect(value(`regex_match('^${pattern}$', @)`, generated)).toBe(true);
    }
    expect(value("random('[0-9a-z]{5}') | length(@)")).toBe(5);
  });
  it("can be parsed as JSON when it is digits (lookup example)", () => {
    const picked = value("lookup(@, modulo(random('[1-9][0-9]{0,5}') | parse_json(@), length(@)))", [
      "item1",
      "item2",
      "item3",
    ]);
    expect(["item1", "item2", "item3"]).toContain(picked);
  });
  it("rejects empty and invalid patterns", () => {
    expect(error("random('')")).toBe("JMESPath function 'random': no pattern provided");
    expect(error("random('(')")).toContain("missing closing )");
  });
  it("cannot be used to allocate unbounded memory", () => {
    const small = createJmespath({ clock: { now: () => Date.now() }, maxStringLength: 1000 });
    expect(small.search("random('(a{1000}b){1000}')", null)).toMatchObject({ ok: false });
    expect(small.search("random('a{1000}b')", null)).toMatchObject({
      ok: false,
      error: expect.stringContaining("limit"),
    });
    expect(small.search("join('', [random('a{900}'), random('a{900}')])", null)).toMatchObject({ ok: false });
  });
});
