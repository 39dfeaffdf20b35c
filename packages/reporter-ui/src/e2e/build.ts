/**
 * Builds the dashboard for the browser tests when `dist/` is missing or older than its sources.
 * Test files run in parallel: a lock directory makes one build while the others wait, then find
 * `dist/` fresh (two builds at once would empty `dist/` under a running test's server).
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The package directory. */
export const PACKAGE_DIR = fileURLToPath(new URL("../../", import.meta.url));

function newest(path: string): number {
  const info = statSync(path);
  if (!info.isDirectory()) return path.endsWith(".test.ts") ? 0 : info.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newest(join(path, name))));
}

function fresh(): boolean {
  const index = join(PACKAGE_DIR, "dist", "index.html");
  const sources = Math.max(
    newest(join(PACKAGE_DIR, "src")),
    newest(join(PACKAGE_DIR, "index.html")),
    newest(join(PACKAGE_DIR, "vite.config.ts")),
  );
  return existsSync(index) && statSync(index).mtimeMs > sources;
}

const sleep = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** Takes the build lock (a directory), waiting up to 3 minutes; a lock older than that is stale. */
function lock(dir: string): void {
  const deadline = Date.now() + 180_000;
  for (;;) {
    try {
      mkdirSync(dir);
      return;
    } catch {
      const age = existsSync(dir) ? Date.now() - statSync(dir).mtimeMs : 0;
      if (age > 180_000 || Date.now() > deadline) rmSync(dir, { recursive: true, force: true });
      else sleep(200);
    }
  }
}

/** Runs `vite build` unless `dist/index.html` is newer than every source file; returns whether it built. */
export function ensureBuilt(): boolean {
  if (fresh()) return false;
  const lockDir = join(PACKAGE_DIR, ".build-lock");
  lock(lockDir);
  try {
    if (fresh()) return false;
    build();
    return true;
  } finally {
    rmSync(lockDir, { recursive: true, force: true });
  }
}

function build(): void {
  const vitePackage = createRequire(join(PACKAGE_DIR, "package.json")).resolve("vite/package.json");
  const vite = join(dirname(vitePackage), "bin", "vite.js");
  // Vitest sets NODE_ENV=test, which would make Vite bundle React's development build.
  execFileSync(process.execPath, [vite, "build", "--logLevel", "warn"], {
    cwd: PACKAGE_DIR,
    stdio: "pipe",
    env: { ...process.env, NODE_ENV: "production" },
  });
}
