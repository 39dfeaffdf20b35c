/**
 * Files of a data directory that hold secrets (CA key, signing key, tokens, stored Secrets): the
 * directory is kept at mode 0700 and every file at 0600, whoever created them before.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";

/** Creates `dir` (and parents) if needed and restricts it to its owner (0700). */
export function secureDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
}

/** Writes `text` to `path`, readable and writable by the owner only (0600). */
export function writeSecretFile(path: string, text: string): void {
  writeFileSync(path, text, { mode: 0o600 });
  chmodSync(path, 0o600);
}

/** Restricts an existing file to its owner (files written by earlier versions). */
export function secureFile(path: string): void {
  if (existsSync(path)) chmodSync(path, 0o600);
}

/** The text of `path`, or `undefined` when it does not exist. */
export function readStateFile(path: string): string | undefined {
  return existsSync(path) ? readFileSync(path, "utf8") : undefined;
}
