/**
 * What the image runs: the workspace packages the CLI loads in a cluster, and the closure of their
 * production dependencies as npm installed them (the same versions, the same nesting), found by
 * walking `dependencies`, `optionalDependencies` and installed `peerDependencies` from
 * `@kyverno-ts/cli` the way Node resolves packages. devDependencies are never reached, and `@types/*`
 * packages (declared by a few dependencies, but declarations only) are skipped.
 *
 * `@kyverno-ts/sandbox` (the local API server behind `kyverno-ts sandbox` and `playground`) is left
 * out: those are development commands the CLI imports only when they run.
 *
 * Files a running Node.js never reads are pruned from the dependencies (see `isPrunedFile`,
 * `PRUNED_DIRS` and `PRUNED_NESTED_DIRS`), keeping license and notice files. A package the code uses
 * a small part of is shipped as a tree-shaken bundle of that part (`scripts/image-bundle.ts`).
 */
import { existsSync, lstatSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { BUNDLED_DEPENDENCIES, stageBundled } from "./image-bundle.ts";
import type { Stage } from "./image-stage.ts";

/** Workspace packages the image leaves out, with the reason (see the module comment). */
export const EXCLUDED_WORKSPACES: ReadonlyMap<string, string> = new Map([
  ["@kyverno-ts/sandbox", "local development API server (`kyverno-ts sandbox`, `playground`)"],
]);

/** A package's top-level folders that hold tests, docs or examples, never loaded at run time. */
export const PRUNED_DIRS: ReadonlySet<string> = new Set([
  ".github",
  "__tests__",
  "bench",
  "benchmark",
  "benchmarks",
  "coverage",
  "doc",
  "docs",
  "example",
  "examples",
  "test",
  "tests",
]);

/**
 * Folders, at any depth of a package, that hold test data (the Go convention `testdata`):
 * `@bufbuild/cel-spec` ships the CEL conformance suite in `dist/{esm,cjs}/testdata` (5.4 MB), which
 * only conformance runs import.
 */
export const PRUNED_NESTED_DIRS: ReadonlySet<string> = new Set(["testdata"]);

/** Whether a package's folder is left out: `top` for one directly in the package's root. */
export function isPrunedDir(name: string, top: boolean): boolean {
  return PRUNED_NESTED_DIRS.has(name) || (top && PRUNED_DIRS.has(name));
}

const KEPT_TEXT = /^(licen[cs]e|notice|copying|authors)/i;

/**
 * Files that a running Node.js never reads: source maps, type declarations, TypeScript sources,
 * markdown (except license/notice files), tests (`*.test.js`, `*.spec.js`) and `.bare` addons
 * (prebuilt for the Bare runtime, which Node cannot load).
 */
export function isPrunedFile(name: string): boolean {
  if (KEPT_TEXT.test(name)) return false;
  return /\.(map|[mc]?ts|md|markdown|bare|tsbuildinfo)$/i.test(name) || /\.(test|spec)\.[mc]?js$/.test(name);
}

/** The resolved set of packages the image ships. */
export interface PackageSet {
  /** Workspace packages (repo-relative folders, e.g. `packages/cli`) by package name. */
  workspaces: Map<string, string>;
  /** Installed dependency folders, relative to the repository root (`node_modules/…`), sorted. */
  dependencies: string[];
}

interface Manifest {
  name?: string;
  main?: string;
  bin?: string | Record<string, string>;
  exports?: unknown;
  imports?: unknown;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

const readManifest = (dir: string): Manifest => JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));

function resolveFrom(dir: string, name: string): string | undefined {
  let current = dir;
  for (;;) {
    const candidate = join(current, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return candidate;
    const parent = dirname(current);
    if (parent === current) return undefined;
    current = parent;
  }
}

/** Walks the production dependency graph from `@kyverno-ts/cli`. */
export function resolvePackages(root: string): PackageSet {
  const workspaces = new Map<string, string>();
  const dependencies = new Set<string>();
  const packagesDir = join(root, "packages") + sep;
  const visit = (dir: string, from: string) => {
    const real = realpathSync(dir);
    const manifest = readManifest(real);
    const name = manifest.name ?? dir;
    if (real.startsWith(packagesDir)) {
      if (EXCLUDED_WORKSPACES.has(name) || workspaces.has(name)) return;
      workspaces.set(name, relative(root, real));
    } else {
      const rel = relative(root, dir);
      if (dependencies.has(rel)) return;
      dependencies.add(rel);
    }
    const wanted = new Map<string, boolean>();
    for (const dep of Object.keys(manifest.dependencies ?? {})) wanted.set(dep, true);
    for (const dep of Object.keys(manifest.optionalDependencies ?? {})) wanted.set(dep, false);
    for (const dep of Object.keys(manifest.peerDependencies ?? {}))
      if (!wanted.has(dep)) wanted.set(dep, false);
    for (const [dep, required] of wanted) {
      if (dep.startsWith("@types/")) continue; // type declarations only: nothing Node loads
      const found = resolveFrom(real, dep);
      if (found !== undefined) visit(found, name);
      else if (required)
        throw new Error(
          `${name} (needed by ${from}) depends on ${dep}, which is not installed: run \`npm ci\``,
        );
    }
  };
  const cli = join(root, "node_modules", "@kyverno-ts", "cli");
  if (!existsSync(cli)) throw new Error("node_modules/@kyverno-ts/cli is missing: run `npm ci`");
  visit(cli, "the image");
  return { workspaces, dependencies: [...dependencies].sort() };
}

/** The entry points a package.json names (main, bin, exports, imports), as top-level folder names. */
function entryDirs(manifest: Manifest): Set<string> {
  const dirs = new Set<string>();
  const add = (value: unknown): void => {
    if (typeof value === "string") {
      const first = value.replace(/^\.\//, "").split("/")[0];
      if (first !== undefined && value.replace(/^\.\//, "").includes("/")) dirs.add(first);
    } else if (Array.isArray(value)) for (const v of value) add(v);
    else if (value !== null && typeof value === "object") for (const v of Object.values(value)) add(v);
  };
  add(manifest.main);
  add(manifest.bin);
  add(manifest.exports);
  add(manifest.imports);
  return dirs;
}

/** What `stageDependencies` copied. */
export interface DependencySummary {
  packages: number;
  files: number;
  bytes: number;
  prunedBytes: number;
}

/** Copies the dependency folders into `stage` (keeping `node_modules/…` paths), pruned. */
export function stageDependencies(
  root: string,
  dependencies: readonly string[],
  stage: Stage,
): DependencySummary {
  const summary: DependencySummary = { packages: dependencies.length, files: 0, bytes: 0, prunedBytes: 0 };
  for (const rel of dependencies) {
    const dir = join(root, rel);
    const manifest = readManifest(dir);
    const bundled = manifest.name === undefined ? undefined : BUNDLED_DEPENDENCIES.get(manifest.name);
    if (bundled !== undefined) {
      const staged = stageBundled(root, rel, bundled, stage);
      summary.files += staged.files;
      summary.bytes += staged.bytes;
      summary.prunedBytes += folderBytes(dir, ["node_modules"]) - staged.bytes;
      continue;
    }
    const keepDirs = entryDirs(manifest);
    const copy = (path: string, top: boolean) => {
      for (const entry of readdirSync(path, { withFileTypes: true }).sort((a, b) =>
        a.name.localeCompare(b.name),
      )) {
        const source = join(path, entry.name);
        if (entry.isDirectory()) {
          if (entry.name === "node_modules") continue; // nested packages are their own entries
          if (isPrunedDir(entry.name, top) && !(top && keepDirs.has(entry.name))) {
            summary.prunedBytes += folderBytes(source);
            continue;
          }
          copy(source, false);
        } else if (entry.isFile()) {
          if (isPrunedFile(entry.name)) {
            summary.prunedBytes += lstatSync(source).size;
            continue;
          }
          const executable = (lstatSync(source).mode & 0o111) !== 0;
          summary.bytes += stage.copyFile(source, relative(root, source), { executable });
          summary.files++;
        } else if (entry.isSymbolicLink()) {
          throw new Error(`${relative(root, source)}: symbolic links inside a dependency are not supported`);
        }
      }
    };
    copy(dir, true);
  }
  return summary;
}

function folderBytes(dir: string, skip: readonly string[] = []): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (skip.includes(entry.name)) continue;
    if (entry.isDirectory()) total += folderBytes(path);
    else if (entry.isFile()) total += lstatSync(path).size;
  }
  return total;
}
