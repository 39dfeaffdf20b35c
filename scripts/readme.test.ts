/**
 * The README's CLI examples work as written: every `npx kyverno-ts …` line of the CLI section is run
 * through the bin npm links (`node_modules/.bin/kyverno-ts`, which a fresh `npm ci` must create).
 * Examples on the repository's own files run as they are; examples on placeholder files (`policy.yaml`)
 * and the long-running servers are checked by their subcommand's `--help`, so a renamed command or a
 * removed subcommand fails here.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const BIN = join(ROOT, "node_modules", ".bin", "kyverno-ts");
const SERVERS = new Set([
  "playground",
  "sandbox",
  "admission",
  "reports",
  "background",
  "cleanup",
  "reporter",
]);

/** The `npx kyverno-ts` commands of the README's CLI section, continuation lines joined, comments cut. */
function readmeCommands(): string[][] {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("\n## CLI"), readme.indexOf("\n## The bundled policy set"));
  const commands: string[][] = [];
  for (const block of section.split("```").filter((_, i) => i % 2 === 1)) {
    const joined = block.replace(/\\\n\s*/g, " ");
    for (const line of joined.split("\n")) {
      const at = line.indexOf("npx kyverno-ts ");
      if (at < 0) continue;
      const command = line
        .slice(at + "npx kyverno-ts ".length)
        .replace(/\s+#.*$/, "")
        .replace(/\s+>\s+\S+$/, "");
      commands.push(
        command.match(/'[^']*'|"[^"]*"|\S+/g)?.map((w) => w.replace(/^(['"])(.*)\1$/, "$2")) ?? [],
      );
    }
  }
  return commands;
}

/** Arguments that name files or folders; the example runs only when they all exist here. */
function pathsOf(args: readonly string[]): string[] {
  return args.filter((a) => !a.startsWith("-") && /[./]/.test(a) && !/^[a-z]+=/.test(a) && !a.includes("("));
}

function expand(args: readonly string[]): string[] {
  // `policies/*.yaml` as the shell expands it.
  return args.flatMap((a) => {
    if (!a.includes("*")) return [a];
    const dir = a.slice(0, a.lastIndexOf("/"));
    const suffix = a.slice(a.lastIndexOf("*") + 1);
    return listDir(dir)
      .filter((f) => f.endsWith(suffix))
      .map((f) => `${dir}/${f}`);
  });
}

function listDir(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).sort();
}

const run = (args: readonly string[]) =>
  spawnSync(BIN, [...args], { cwd: ROOT, encoding: "utf8", timeout: 120_000 });

describe("the README's CLI examples", () => {
  const commands = readmeCommands();

  it("are found, and npm linked the kyverno-ts bin", () => {
    expect(commands.length).toBeGreaterThan(15);
    expect(existsSync(BIN)).toBe(true);
    const version = run(["--version"]);
    expect(version.status).toBe(0);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  for (const args of commands) {
    const [command = ""] = args;
    const runnable =
      !SERVERS.has(command) && pathsOf(args).every((p) => p.includes("*") || existsSync(join(ROOT, p)));
    const shown = `kyverno-ts ${args.join(" ")}`;
    it(runnable ? `${shown} runs` : `${shown}: its subcommand exists (--help)`, () => {
      const sub = command === "create" || command === "jp" ? args.slice(0, 2) : [command];
      const result = runnable ? run(expand(args)) : run([...sub, "--help"]);
      const output = result.stdout + result.stderr;
      // Flags of an example that is not run must at least be documented by its subcommand.
      if (!runnable)
        for (const flag of args.filter((a) => /^--?[a-zA-Z]/.test(a)))
          expect(output, `${flag} in kyverno-ts ${sub.join(" ")} --help`).toContain(flag.split("=")[0]);
      // 0: all good; 1: policy failures (the staging examples are meant to fail).
      expect([0, 1], output).toContain(result.status);
      expect(output).not.toMatch(/^Error: |\n\s+at .*:\d+:\d+\)?\n|unknown (command|option)/);
    });
  }
});
