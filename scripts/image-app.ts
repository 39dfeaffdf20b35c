/**
 * The image's code layer, laid out as the repository is so that every path our code computes from
 * `import.meta.url` holds: `/app/packages/<name>/{package.json,dist/}` for the workspace packages the
 * CLI loads, `/app/packages/reporter-ui/dist` (the dashboard the reporter serves), `/app/policies/*.yaml`
 * (the bundled set `kyverno-ts bundle` prints) and `/app/node_modules/@kyverno-ts/<name>` symlinks to
 * the packages, as npm links workspaces. Only the JavaScript the packages run is copied: no TypeScript
 * sources, declarations, source maps (stack traces point into `dist/`, which tsc keeps readable) or tests.
 * The workspaces the image leaves out (`EXCLUDED_WORKSPACES`) get a stand-in package that says so.
 */
import { existsSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { EXCLUDED_WORKSPACES, isPrunedFile } from "./image-deps.ts";
import type { Stage } from "./image-stage.ts";

/** The CLI's entry in the image (the entrypoint's script). */
export const CLI_IN_IMAGE = "/app/packages/cli/dist/bin.js";

/** What `stageApp` copied. */
export interface AppSummary {
  files: number;
  bytes: number;
}

/** Copies our code into `stage` (copied to `/app/` in the image); `workspaces` maps package names to repo-relative folders. */
export function stageApp(root: string, workspaces: ReadonlyMap<string, string>, stage: Stage): AppSummary {
  const summary: AppSummary = { files: 0, bytes: 0 };
  const copyTree = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
      a.name.localeCompare(b.name),
    )) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) copyTree(path);
      else if (entry.isFile() && !isPrunedFile(entry.name)) {
        summary.bytes += stage.copyFile(path, relative(root, path));
        summary.files++;
      }
    }
  };
  const packages = [...workspaces].sort(([a], [b]) => a.localeCompare(b));
  packages.push(["@kyverno-ts/reporter-ui", "packages/reporter-ui"]);
  for (const [name, dir] of packages) {
    const dist = join(root, dir, "dist");
    const marker = name === "@kyverno-ts/reporter-ui" ? "index.html" : "index.js";
    if (!existsSync(join(dist, marker)))
      throw new Error(`${relative(root, join(dist, marker))} is missing: run \`npm run build\` first`);
    summary.bytes += stage.copyFile(join(root, dir, "package.json"), join(dir, "package.json"));
    summary.files++;
    copyTree(dist);
    if (name !== "@kyverno-ts/reporter-ui") stage.symlink(join("node_modules", name), join("..", "..", dir));
  }
  for (const [name, reason] of EXCLUDED_WORKSPACES) {
    // A stand-in that says the command is not in the image (image/sandbox-stub/).
    const stub = join(root, "image", "sandbox-stub");
    const dir = join("packages", "sandbox");
    if (name !== "@kyverno-ts/sandbox") throw new Error(`no stand-in for ${name} (${reason})`);
    for (const file of ["package.json", "index.js"])
      summary.bytes += stage.copyFile(join(stub, file), join(dir, file));
    summary.files += 2;
    stage.symlink(join("node_modules", name), join("..", "..", dir));
  }
  const policies = join(root, "policies");
  for (const entry of readdirSync(policies, { withFileTypes: true }).sort((a, b) =>
    a.name.localeCompare(b.name),
  ))
    if (entry.isFile() && entry.name.endsWith(".yaml")) {
      summary.bytes += stage.copyFile(join(policies, entry.name), join("policies", entry.name));
      summary.files++;
    }
  return summary;
}
