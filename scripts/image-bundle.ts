/**
 * Dependencies the image ships as one tree-shaken module instead of their installed files, because
 * the code uses a small part of a large package: `@kubernetes/client-node`, of which `@kyverno-ts/kube`
 * loads only `KubeConfig` (kubeconfig and in-cluster configuration, authentication), while the
 * package's index loads its generated API and model classes, 24.9 MB of files. Bundled by rolldown
 * (Vite's bundler, a devDependency) from the installed package, its own imports of other packages
 * left external (they resolve from `node_modules` as before), the result is about 1 MB.
 *
 * The staged package keeps its name, version, license and `dependencies`, with `main` and `exports`
 * pointing at the bundle in `dist/index.js`, where the installed `main` is. Nothing in the bundle
 * reads files next to it (no `import.meta.url`, `__dirname` or `require`; its `package.json` import
 * is inlined).
 *
 * Run as a script (`node scripts/image-bundle.ts <package dir> <out file> <export>...`), which
 * `bundleDependency` does in a child process, so staging stays synchronous.
 *
 * Plain Node 24 type stripping: erasable TypeScript only.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Stage } from "./image-stage.ts";

/** Package names the image bundles, with the exports its code uses. */
export const BUNDLED_DEPENDENCIES: ReadonlyMap<string, readonly string[]> = new Map([
  ["@kubernetes/client-node", ["KubeConfig"]],
]);

const KEPT_TEXT = /^(licen[cs]e|notice|copying|authors)/i;

/** What `stageBundled` wrote. */
export interface BundledSummary {
  files: number;
  bytes: number;
}

/**
 * Stages the package at `root/rel` as its bundle: `package.json` (entry points rewritten), license
 * texts, and `dist/index.js` exporting `names`.
 */
export function stageBundled(
  root: string,
  rel: string,
  names: readonly string[],
  stage: Stage,
): BundledSummary {
  const dir = join(root, rel);
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Record<string, unknown>;
  const work = mkdtempSync(join(tmpdir(), "kyverno-ts-image-bundle-"));
  try {
    const out = join(work, "index.js");
    const run = spawnSync(process.execPath, [fileURLToPath(import.meta.url), dir, out, ...names], {
      encoding: "utf8",
    });
    if (run.status !== 0) throw new Error(`bundling ${rel} failed: ${run.stderr || run.stdout}`);
    const staged: Record<string, unknown> = {
      name: manifest.name,
      version: manifest.version,
      description: `${String(manifest.description ?? "")} (kyverno-ts image: ${names.join(", ")} only, bundled)`,
      license: manifest.license,
      type: "module",
      main: "dist/index.js",
      exports: { ".": "./dist/index.js" },
      dependencies: manifest.dependencies ?? {},
    };
    const summary: BundledSummary = { files: 0, bytes: 0 };
    const write = (file: string, content: string): void => {
      stage.writeFile(join(rel, file), content);
      summary.files++;
      summary.bytes += Buffer.byteLength(content);
    };
    write("package.json", `${JSON.stringify(staged, null, 2)}\n`);
    write("dist/index.js", readFileSync(out, "utf8"));
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
      a.name.localeCompare(b.name),
    ))
      if (entry.isFile() && KEPT_TEXT.test(entry.name))
        summary.bytes += stage.copyFile(join(dir, entry.name), relative(root, join(dir, entry.name)));
    return summary;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** The child process: bundles `names` of the package in `dir` into `out` (ES module). */
async function bundleMain(dir: string, out: string, names: readonly string[]): Promise<void> {
  const { rolldown } = await import("rolldown");
  const work = mkdtempSync(join(tmpdir(), "kyverno-ts-image-entry-"));
  try {
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { main?: string };
    const entry = join(work, "entry.js");
    const main = resolve(dir, manifest.main ?? "index.js");
    writeFileSync(entry, `export { ${names.join(", ")} } from ${JSON.stringify(main)};\n`);
    const bundle = await rolldown({
      input: entry,
      platform: "node",
      // The package's own files are bundled; every other package stays an import.
      external: (id) => !(id.startsWith(".") || id.startsWith("/")),
      logLevel: "silent",
    });
    await bundle.write({ file: out, format: "esm" });
    await bundle.close();
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [dir, out, ...names] = process.argv.slice(2);
  if (dir === undefined || out === undefined || names.length === 0) {
    console.error("usage: node scripts/image-bundle.ts <package dir> <out file> <export>...");
    process.exit(2);
  }
  await bundleMain(dir, out, names);
}
