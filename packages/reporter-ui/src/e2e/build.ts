/** Builds the dashboard for the browser tests when `dist/` is missing or older than its sources. */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
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

/** Runs `vite build` unless `dist/index.html` is newer than every source file; returns whether it built. */
export function ensureBuilt(): boolean {
  const index = join(PACKAGE_DIR, "dist", "index.html");
  const sources = Math.max(
    newest(join(PACKAGE_DIR, "src")),
    newest(join(PACKAGE_DIR, "index.html")),
    newest(join(PACKAGE_DIR, "vite.config.ts")),
  );
  if (existsSync(index) && statSync(index).mtimeMs > sources) return false;
  const vitePackage = createRequire(join(PACKAGE_DIR, "package.json")).resolve("vite/package.json");
  const vite = join(dirname(vitePackage), "bin", "vite.js");
  // Vitest sets NODE_ENV=test, which would make Vite bundle React's development build.
  execFileSync(process.execPath, [vite, "build", "--logLevel", "warn"], {
    cwd: PACKAGE_DIR,
    stdio: "pipe",
    env: { ...process.env, NODE_ENV: "production" },
  });
  return true;
}
