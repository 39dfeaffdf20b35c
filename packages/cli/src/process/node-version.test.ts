import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { findPinnedNode, nodeMajor, nodeVerdict, REQUIRED_NODE_MAJOR } from "./node-version.js";

const CLI_DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const ROOT = join(CLI_DIR, "..", "..");

describe("the Node.js version check", () => {
  it("reads the major version", () => {
    expect(nodeMajor("20.20.2")).toBe(20);
    expect(nodeMajor("24.21.0")).toBe(24);
  });

  it("runs on Node.js 24 and newer as it is", () => {
    expect(nodeVerdict("24.0.0", "/usr/bin/node", "/x", () => false)).toEqual({ kind: "supported" });
    expect(nodeVerdict("25.1.0", "/usr/bin/node", "/x", () => false)).toEqual({ kind: "supported" });
  });

  it("re-runs an older Node.js on the pinned binary found in a parent's node_modules", () => {
    const pinned = "/repo/node_modules/node/bin/node";
    const verdict = nodeVerdict("20.20.2", "/usr/bin/node", "/repo/packages/cli/dist", (p) => p === pinned);
    expect(verdict).toEqual({ kind: "rerun", node: pinned });
    expect(findPinnedNode("/repo/packages/cli/dist", () => false)).toBeUndefined();
  });

  it("says what to do, without a stack trace, when no pinned Node.js is there", () => {
    const verdict = nodeVerdict("20.20.2", "/usr/bin/node", "/elsewhere", () => false);
    expect(verdict.kind).toBe("unsupported");
    if (verdict.kind !== "unsupported") return;
    expect(verdict.message).toContain(
      `needs Node.js ${REQUIRED_NODE_MAJOR} or newer; this is Node.js v20.20.2`,
    );
    expect(verdict.message).toContain("npx kyverno-ts");
  });

  // The machine's own Node.js is older than 24 on the development machines and CI; where it is not,
  // there is nothing old to run the built CLI with.
  const systemNode = ["/usr/bin/node", "/usr/local/bin/node"].find((p) => existsSync(p));
  const systemMajor =
    systemNode === undefined
      ? 0
      : nodeMajor(execFileSync(systemNode, ["-p", "process.versions.node"]).toString());
  it.skipIf(systemNode === undefined || systemMajor >= REQUIRED_NODE_MAJOR)(
    "the built CLI started with an older Node.js runs on the pinned one (no undici or node:sqlite crash)",
    () => {
      const bin = join(CLI_DIR, "dist", "bin.js");
      // admission loads undici's interceptors, reporter node:sqlite: both crashed on Node.js 20.
      for (const command of ["admission", "reporter"]) {
        const run = spawnSync(systemNode as string, [bin, command, "--help"], { encoding: "utf8" });
        expect(run.stderr, command).not.toMatch(/TypeError|ERR_UNKNOWN_BUILTIN_MODULE|\n\s+at /);
        expect(run.status, command).toBe(0);
        expect(run.stdout).toContain(`kyverno-ts ${command}`);
      }
    },
  );
});

describe("the kyverno-ts bin", () => {
  it("is a committed file, so npm links it before `prepare` builds dist/", () => {
    const pkg = JSON.parse(readFileSync(join(CLI_DIR, "package.json"), "utf8")) as {
      bin: Record<string, string>;
    };
    const bin = pkg.bin["kyverno-ts"] as string;
    expect(bin.startsWith("dist/")).toBe(false);
    const tracked = execFileSync("git", ["ls-files", "--error-unmatch", join("packages/cli", bin)], {
      cwd: ROOT,
    });
    expect(tracked.toString().trim()).toBe(join("packages/cli", bin));
  });
});
