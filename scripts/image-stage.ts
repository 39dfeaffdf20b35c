/**
 * A build-context folder written with fixed metadata: directories 0755, files 0644 or 0755
 * (executables), and every modification time set to the build's epoch when it is finished, so
 * buildah's COPY sees the same bytes and the same metadata on every build from the same inputs.
 */
import { createHash } from "node:crypto";
import {
  chmodSync,
  copyFileSync,
  lstatSync,
  lutimesSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";

/** One staged tree (a layer's worth of files). */
export interface Stage {
  /** The folder on disk. */
  readonly dir: string;
  /** Copies a file to `rel`, as an executable when `executable` is set (else 0644). Returns its size. */
  copyFile(source: string, rel: string, options?: { executable?: boolean }): number;
  /** Writes `content` to `rel` (0644). */
  writeFile(rel: string, content: string | Buffer): void;
  /** Creates the directory `rel` (and its parents) with `mode` (default 0755). */
  mkdir(rel: string, mode?: number): void;
  /** Creates the symbolic link `rel` pointing at `target` (a relative target keeps the tree movable). */
  symlink(rel: string, target: string): void;
  /** Sets every entry's modification time to `epoch` (seconds); call once everything is written. */
  finish(): void;
  /** Bytes of regular files staged so far. */
  bytes(): number;
  /** sha256 over every entry's path, type, mode, link target and content: equal digests, equal inputs. */
  digest(): string;
}

/** Creates the stage rooted at `dir` (which must be empty or absent); `epoch` is the fixed mtime. */
export function createStage(dir: string, epoch: number): Stage {
  let bytes = 0;
  const ensureParent = (rel: string) => {
    const parent = dirname(join(dir, rel));
    mkdirSync(parent, { recursive: true, mode: 0o755 });
  };
  const touchAll = (path: string) => {
    const stat = lstatSync(path);
    if (stat.isDirectory()) for (const entry of readdirSync(path)) touchAll(join(path, entry));
    lutimesSync(path, epoch, epoch);
  };
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  return {
    dir,
    copyFile(source, rel, options) {
      ensureParent(rel);
      const target = join(dir, rel);
      copyFileSync(source, target);
      chmodSync(target, options?.executable ? 0o755 : 0o644);
      const size = lstatSync(target).size;
      bytes += size;
      return size;
    },
    writeFile(rel, content) {
      ensureParent(rel);
      const target = join(dir, rel);
      writeFileSync(target, content);
      chmodSync(target, 0o644);
      bytes += lstatSync(target).size;
    },
    mkdir(rel, mode = 0o755) {
      const target = join(dir, rel);
      mkdirSync(target, { recursive: true, mode: 0o755 });
      chmodSync(target, mode);
    },
    symlink(rel, target) {
      ensureParent(rel);
      symlinkSync(target, join(dir, rel));
    },
    finish() {
      // mkdir's mode is filtered by the umask; directories created as parents get 0755 explicitly here.
      const fixDirs = (path: string) => {
        for (const entry of readdirSync(path, { withFileTypes: true }))
          if (entry.isDirectory()) {
            const child = join(path, entry.name);
            if ((lstatSync(child).mode & 0o7777) !== 0o1777) chmodSync(child, 0o755);
            fixDirs(child);
          }
      };
      fixDirs(dir);
      touchAll(dir);
    },
    bytes: () => bytes,
    digest() {
      const hash = createHash("sha256");
      const walk = (path: string, rel: string) => {
        for (const entry of readdirSync(path).sort()) {
          const child = join(path, entry);
          const name = rel === "" ? entry : `${rel}/${entry}`;
          const stat = lstatSync(child);
          hash.update(`${name}\0${stat.mode.toString(8)}\0`);
          if (stat.isSymbolicLink()) hash.update(`-> ${readlinkSync(child)}\0`);
          else if (stat.isDirectory()) walk(child, name);
          else hash.update(readFileSync(child));
        }
      };
      walk(dir, "");
      return hash.digest("hex");
    },
  };
}
