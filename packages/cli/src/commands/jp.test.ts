import { afterEach, describe, expect, it } from "vitest";
import { cli, tempTree } from "../testing/harness.js";

describe("kyverno-ts jp", () => {
  const trees: Array<() => void> = [];
  afterEach(() => {
    for (const cleanup of trees.splice(0)) cleanup();
  });

  it("queries a YAML input file with Kyverno functions", async () => {
    const t = tempTree({ "foo.yaml": "bar: this-is-a-dashed-string\n" });
    trees.push(t.cleanup);
    const run = await cli(["jp", "query", "-i", "foo.yaml", "split(bar, '-') | length(@)"], t.dir);
    expect(run.stdout).toBe("# split(bar, '-') | length(@)\n5\n");
    expect(run.code).toBe(0);
  });

  it("reads the input from stdin and prints unquoted strings with -u", async () => {
    const run = await cli(["jp", "query", "-u", "to_lower(foo)"], process.cwd(), '{"foo": "BAR"}');
    expect(run.stdout).toBe("# to_lower(foo)\nbar\n");
  });

  it("exits 2 on an unknown function", async () => {
    const run = await cli(["jp", "query", "no_such_function(@)"], process.cwd(), "{}");
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("no_such_function");
  });

  it("lists functions with signatures", async () => {
    const run = await cli(["jp", "function", "truncate"], process.cwd());
    expect(run.stdout).toMatch(/^Name: truncate\n {2}Signature: truncate\(/);
    expect(run.code).toBe(0);
    const all = await cli(["jp", "function"], process.cwd());
    for (const name of ["add", "base64_decode", "time_since", "x509_decode"])
      expect(all.stdout).toContain(`Name: ${name}\n`);
    expect((await cli(["jp", "function", "nope"], process.cwd())).code).toBe(2);
  });

  it("parses an expression", async () => {
    const ok = await cli(["jp", "parse", "request.object.metadata.name | truncate(@, `9`)"], process.cwd());
    expect(ok.code).toBe(0);
    expect(ok.stdout.startsWith("# request.object.metadata.name | truncate(@, `9`)\n")).toBe(true);
    const bad = await cli(["jp", "parse", "foo[?"], process.cwd());
    expect(bad.code).toBe(2);
  });
});

describe("kyverno-ts version and help", () => {
  it("prints the version", async () => {
    const run = await cli(["version"], process.cwd());
    expect(run.stdout).toMatch(/^Version: \d+\.\d+\.\d+/);
  });

  it("shows help with examples for every command", async () => {
    for (const args of [
      ["--help"],
      ["apply", "--help"],
      ["test", "--help"],
      ["jp", "--help"],
      ["jp", "query", "--help"],
      ["version", "--help"],
    ]) {
      const run = await cli(args, process.cwd());
      expect(run.code).toBe(0);
      expect(run.stdout).toContain("Examples:");
    }
  });
});
