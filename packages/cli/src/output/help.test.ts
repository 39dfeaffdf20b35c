/**
 * One help style for every subcommand (commander's layout): a usage line, a description paragraph,
 * the options with `-h, --help  display help for command`, also through `help <command>`. Before,
 * `sandbox --help` and `reporter --help` printed one line, the background and cleanup controllers
 * listed no -h, and `help admission` (any controller) printed only `Usage: kyverno-ts admission [args...]`.
 */
import { describe, expect, it } from "vitest";
import { cli } from "../testing/harness.js";

/** The subcommands the root help lists. */
async function subcommands(): Promise<string[]> {
  const root = await cli(["--help"], process.cwd());
  const section = root.stdout.slice(root.stdout.indexOf("\nCommands:\n"));
  return [...section.matchAll(/^ {2}([a-z]+)\b/gm)]
    .map((m) => m[1] as string)
    .filter((name) => name !== "help");
}

describe("--help of every subcommand", () => {
  it("has commander's layout: usage, description, options with -h, --help", { timeout: 60_000 }, async () => {
    const names = await subcommands();
    expect(names).toEqual(
      expect.arrayContaining([
        "apply",
        "admission",
        "cleanup",
        "reports",
        "background",
        "reporter",
        "sandbox",
      ]),
    );
    for (const name of names) {
      const run = await cli([name, "--help"], process.cwd());
      expect(run.code, name).toBe(0);
      const lines = run.stdout.split("\n");
      expect(lines[0], name).toMatch(new RegExp(`^Usage: kyverno-ts ${name} \\[(options|flags)\\]`));
      expect(lines[1], name).toBe("");
      expect(lines[2]?.trim().length ?? 0, `${name}: a description`).toBeGreaterThan(10);
      expect(run.stdout, name).toMatch(/\n {2}-h, --help +display help for command\n/);
      expect(lines.length, `${name}: more than a line`).toBeGreaterThan(6);
      // `help <command>` prints the same help (it printed a one-line usage for the controllers).
      const viaHelp = await cli(["help", name], process.cwd());
      expect(viaHelp.stdout, `help ${name}`).toBe(run.stdout);
      expect(viaHelp.code, `help ${name}`).toBe(0);
    }
  });
});
