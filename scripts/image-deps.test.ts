import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { EXCLUDED_WORKSPACES, isPrunedDir, isPrunedFile, resolvePackages } from "./image-deps.ts";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

describe("isPrunedFile", () => {
  it("drops what Node never reads and keeps code, data and license texts", () => {
    const pruned = [
      "index.d.ts",
      "index.d.mts",
      "index.js.map",
      "src.ts",
      "README.md",
      "x.test.js",
      "y.spec.mjs",
    ];
    const kept = [
      "index.js",
      "index.mjs",
      "index.cjs",
      "package.json",
      "LICENSE",
      "LICENSE.md",
      "NOTICE.md",
      "x.wasm",
    ];
    expect(pruned.filter((name) => !isPrunedFile(name))).toEqual([]);
    expect(kept.filter((name) => isPrunedFile(name))).toEqual([]);
  });
});

describe("isPrunedDir", () => {
  it("drops tests, docs and examples at a package's root, and test data at any depth", () => {
    expect(isPrunedDir("test", true)).toBe(true);
    expect(isPrunedDir("docs", true)).toBe(true);
    expect(isPrunedDir("testdata", true)).toBe(true);
    expect(isPrunedDir("testdata", false)).toBe(true);
    // dist/esm/test could be code (a module named test): only the root's folders are judged by name.
    expect(isPrunedDir("test", false)).toBe(false);
    expect(isPrunedDir("dist", true)).toBe(false);
    expect(isPrunedDir("gen", false)).toBe(false);
  });
});

describe("resolvePackages", () => {
  const packages = resolvePackages(ROOT);
  const installed = (rel: string) =>
    JSON.parse(readFileSync(join(ROOT, rel, "package.json"), "utf8")).name as string;
  const names = new Set(packages.dependencies.map(installed));

  it("takes the CLI's workspaces, without the ones the image leaves out", () => {
    expect([...packages.workspaces.keys()]).toContain("@kyverno-ts/cli");
    expect([...packages.workspaces.keys()]).toContain("@kyverno-ts/server");
    expect([...packages.workspaces.keys()]).toContain("@kyverno-ts/reporter");
    for (const name of EXCLUDED_WORKSPACES.keys()) expect(packages.workspaces.has(name)).toBe(false);
  });

  it("reaches the production dependencies of the servers and none of the devDependencies", () => {
    for (const name of ["@kubernetes/client-node", "fastify", "pino", "yaml", "kysely"])
      expect(names).toContain(name);
    const root = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
      devDependencies: Record<string, string>;
    };
    expect(Object.keys(root.devDependencies).filter((name) => names.has(name))).toEqual([]);
  });

  it("leaves out what only the dashboard's build needs, and keeps the engine's CEL interpreter", () => {
    // react is bundled into packages/reporter-ui/dist by Vite.
    expect(names.has("react")).toBe(false);
    // The engine evaluates CEL policies and validate.cel rules, so the image needs the interpreter.
    expect(names.has("@bufbuild/cel")).toBe(true);
  });
});
