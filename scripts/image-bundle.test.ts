import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { BUNDLED_DEPENDENCIES, stageBundled } from "./image-bundle.ts";
import { createStage } from "./image-stage.ts";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const REL = "node_modules/@kubernetes/client-node";

function folderBytes(dir: string): number {
  const run = spawnSync("du", ["-sb", "--exclude=node_modules", dir], { encoding: "utf8" });
  return Number(run.stdout.split("\t")[0]);
}

describe("stageBundled: @kubernetes/client-node as KubeConfig only", { timeout: 120_000 }, () => {
  // Under the repository's node_modules, so the bundle's imports of other packages resolve as in the image.
  const work = mkdtempSync(join(ROOT, "node_modules", ".cache", "image-bundle-test-"));
  afterAll(() => rmSync(work, { recursive: true, force: true }));
  const stage = createStage(work, 0);
  const names = BUNDLED_DEPENDENCIES.get("@kubernetes/client-node") ?? [];
  const summary = stageBundled(ROOT, REL, names, stage);
  const staged = join(work, REL);

  it("stages the package's name, version and dependencies, with main and exports at the bundle", () => {
    const installed = JSON.parse(readFileSync(join(ROOT, REL, "package.json"), "utf8"));
    const manifest = JSON.parse(readFileSync(join(staged, "package.json"), "utf8"));
    expect(manifest).toMatchObject({
      name: "@kubernetes/client-node",
      version: installed.version,
      type: "module",
      main: "dist/index.js",
      exports: { ".": "./dist/index.js" },
      dependencies: installed.dependencies,
    });
    expect(readFileSync(join(staged, "LICENSE"), "utf8")).toBe(
      readFileSync(join(ROOT, REL, "LICENSE"), "utf8"),
    );
  });

  it("is a tenth of the installed files or less", () => {
    expect(summary.bytes * 10).toBeLessThan(folderBytes(join(ROOT, REL)));
  });

  it("loads with require() as @kyverno-ts/kube loads it, and KubeConfig reads a kubeconfig and authenticates", () => {
    const script = `
      const { KubeConfig } = require(${JSON.stringify(staged)});
      const kc = new KubeConfig();
      kc.loadFromString(JSON.stringify({
        apiVersion: "v1", kind: "Config", "current-context": "x",
        clusters: [{ name: "c", cluster: { server: "https://10.0.0.1:6443" } }],
        users: [{ name: "u", user: { token: "secret-token" } }],
        contexts: [{ name: "x", context: { cluster: "c", user: "u", namespace: "kyverno" } }],
      }));
      const options = { headers: {} };
      Promise.resolve(kc.applyToHTTPSOptions(options)).then(() =>
        console.log(JSON.stringify({ server: kc.getCurrentCluster().server, headers: options.headers })));`;
    const run = spawnSync(process.execPath, ["-e", script], { encoding: "utf8" });
    expect(run.stderr).toBe("");
    expect(JSON.parse(run.stdout)).toEqual({
      server: "https://10.0.0.1:6443",
      headers: { Authorization: "Bearer secret-token" },
    });
  });
});
