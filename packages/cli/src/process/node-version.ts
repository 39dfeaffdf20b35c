/**
 * The Node.js the CLI needs. kyverno-ts runs on Node.js 24 (the repository pins it as the devDependency
 * `node`, which `npm ci` installs into `node_modules/node`); older versions fail deep inside
 * dependencies (undici's interceptors, `node:sqlite`). So before anything else is loaded the CLI
 * checks the running version: on an older Node.js it runs itself again with the pinned Node.js 24
 * when one is installed next to it, else it says what to do instead of crashing with a stack trace.
 */
import { join } from "node:path";

/** The major version of Node.js the CLI runs on. */
export const REQUIRED_NODE_MAJOR = 24;

/** What `nodeVerdict` decided. */
export type NodeVerdict =
  | { kind: "supported" }
  | { kind: "rerun"; node: string }
  | { kind: "unsupported"; message: string };

/** The major version of a `process.versions.node` string (`20.20.2` → 20). */
export function nodeMajor(version: string): number {
  return Number.parseInt(version.split(".")[0] ?? "", 10);
}

/**
 * The pinned Node.js binary (`node_modules/node/bin/node`) in `dir` or one of its parents, the way
 * Node resolves packages; undefined when there is none.
 */
export function findPinnedNode(dir: string, exists: (path: string) => boolean): string | undefined {
  let current = dir;
  for (;;) {
    const candidate = join(current, "node_modules", "node", "bin", "node");
    if (exists(candidate)) return candidate;
    const parent = join(current, "..");
    if (parent === current) return undefined;
    current = parent;
  }
}

/**
 * Whether the CLI can run on Node.js `version`; if not, the pinned binary to run it with, or the
 * message to print. `scriptDir` is where the CLI's entry file lives; `execPath` the running binary
 * (never re-run with itself).
 */
export function nodeVerdict(
  version: string,
  execPath: string,
  scriptDir: string,
  exists: (path: string) => boolean,
): NodeVerdict {
  if (nodeMajor(version) >= REQUIRED_NODE_MAJOR) return { kind: "supported" };
  const pinned = findPinnedNode(scriptDir, exists);
  if (pinned !== undefined && pinned !== execPath) return { kind: "rerun", node: pinned };
  return {
    kind: "unsupported",
    message:
      `kyverno-ts needs Node.js ${REQUIRED_NODE_MAJOR} or newer; this is Node.js v${version} (${execPath}).\n` +
      `In the repository, \`npm ci\` installs the pinned Node.js ${REQUIRED_NODE_MAJOR} and \`npx kyverno-ts …\` runs on it;\n` +
      `elsewhere, install Node.js ${REQUIRED_NODE_MAJOR} (https://nodejs.org) or use the kyverno-ts container image.\n`,
  };
}
