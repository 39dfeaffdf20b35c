/**
 * `npm run image`: builds the kyverno-ts container image from the repository's `Containerfile` with
 * buildah (local inputs only; see image/README.md), prints its layers and sizes, and exports the OCI
 * archive `.artifacts/image/kyverno-ts-<version>.oci.tar` for kind / k3s / containerd.
 *
 *   node scripts/image.ts                 # build and export
 *   node scripts/image.ts --check         # then build and export a second time from a fresh context:
 *                                         # fails unless image ID, manifest, layers and archive bytes match
 *   node scripts/image.ts --update-lock   # accept this machine's runtime files (image/runtime.lock)
 *   node scripts/image.ts --no-archive    # build into podman's store only
 *   node scripts/image.ts --json          # print the summary as JSON on stdout
 *
 * SOURCE_DATE_EPOCH (default 0) is the timestamp of the image and of every file in it. The summary
 * is also written to `.artifacts/image/summary.json`.
 */
import { createHash } from "node:crypto";
import { createReadStream, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { type ArchiveSummary, exportArchive } from "./image-archive.ts";
import { type BuildResult, buildImage, imageNames, stageContext } from "./image-build.ts";
import { createContainerTools } from "./image-tools.ts";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

/** The summary `npm run image` prints and writes to `.artifacts/image/summary.json`. */
export interface ImageSummary {
  name: string;
  archivedName: string;
  epoch: number;
  build: BuildResult;
  totalBytes: number;
  archive?: ArchiveSummary & { sha256: string };
  /** Present with `--check`: what the second build gave, compared with the first. */
  reproducible?: ReproducibilityCheck;
}

/**
 * The second build of `--check` compared with the first. The context is staged a second time; when
 * the repository changed meanwhile (another build rewrote `dist/`), the layers whose staged folder
 * differs are listed and the second build reuses the first context instead, so the comparison is
 * always between builds of the same inputs.
 */
export interface ReproducibilityCheck {
  seconds: number;
  /** Layers whose second staging differed from the first (empty: staging reproduced too). */
  restagedDiffers: string[];
  /** Per layer: whether the second build gave the same digest. */
  layers: Array<{ content: string; sameDigest: boolean }>;
  imageId: boolean;
  manifest: boolean;
  archive?: boolean;
}

/** Whether the second build gave the same digests everywhere. */
export function reproduced(check: ReproducibilityCheck): boolean {
  return (
    check.layers.every((l) => l.sameDigest) && check.imageId && check.manifest && check.archive !== false
  );
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

function fileSha256(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash("sha256");
    createReadStream(file)
      .on("data", (chunk) => hash.update(chunk))
      .on("error", reject)
      .on("end", () => resolve(hash.digest("hex")));
  });
}

function epochFromEnv(): number {
  const raw = process.env.SOURCE_DATE_EPOCH ?? "0";
  const epoch = Number(raw);
  if (!Number.isInteger(epoch) || epoch < 0)
    throw new Error(`SOURCE_DATE_EPOCH must be a non-negative integer (seconds), got ${JSON.stringify(raw)}`);
  return epoch;
}

function describe(summary: ImageSummary): string {
  const { build } = summary;
  const lines = [
    `image     ${summary.name} (${summary.archivedName} in the archive)`,
    `image ID  ${build.imageId}`,
    `manifest  ${build.manifestDigest} (podman's store, uncompressed layers)`,
    `layers    ${build.layers.map((l) => `${l.content} ${mb(l.bytes)}`).join(" | ")} = ${mb(summary.totalBytes)} uncompressed`,
    `node      ${mb(build.runtime.nodeBytes.original)} → ${mb(build.runtime.nodeBytes.staged)} stripped`,
    `deps      ${build.dependencies.packages} packages, ${build.dependencies.files} files, ${mb(build.dependencies.bytes)} (${mb(build.dependencies.prunedBytes)} pruned)`,
    `code      ${build.app.files} files, ${mb(build.app.bytes)}`,
    `time      staged in ${build.seconds.stage.toFixed(1)} s, built in ${build.seconds.build.toFixed(1)} s`,
  ];
  if (build.runtime.lockWritten) lines.push("lock      image/runtime.lock written from this machine's files");
  const { archive, reproducible } = summary;
  if (archive)
    lines.push(
      `archive   ${relative(ROOT, archive.file)} (${mb(archive.bytes)}; gzip layers ${archive.layerBytes.map(mb).join(" | ")})`,
      `          manifest ${archive.manifestDigest}, file sha256:${archive.sha256}`,
    );
  if (reproducible) {
    const same = (ok: boolean | undefined) => (ok ? "same" : "DIFFERENT");
    const parts = [
      ...reproducible.layers.map((l) => `${l.content} layer ${same(l.sameDigest)}`),
      `image ID ${same(reproducible.imageId)}`,
      `manifest ${same(reproducible.manifest)}`,
      ...(reproducible.archive === undefined ? [] : [`archive bytes ${same(reproducible.archive)}`]),
    ];
    const outcome = reproduced(reproducible) ? "reproducible" : "NOT reproducible";
    lines.push(
      `check     rebuilt in ${reproducible.seconds.toFixed(1)} s: ${outcome}`,
      `          ${parts.join(", ")}`,
    );
    if (reproducible.restagedDiffers.length > 0)
      lines.push(
        `          (restaging gave another ${reproducible.restagedDiffers.join(", ")} context: the repository ` +
          "changed meanwhile, so the first context was built again)",
      );
  }
  return lines.join("\n");
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      check: { type: "boolean", default: false },
      "update-lock": { type: "boolean", default: false },
      "no-archive": { type: "boolean", default: false },
      json: { type: "boolean", default: false },
    },
  });
  const epoch = epochFromEnv();
  const names = imageNames(ROOT);
  const tools = createContainerTools({ root: ROOT });
  tools.prepare();
  const echo = !values.json;

  const contextDir = join(ROOT, ".artifacts", "image", "context");
  const staged = stageContext({ root: ROOT, dir: contextDir, epoch, updateLock: values["update-lock"] });
  const build = await buildImage({ root: ROOT, tools, epoch, staged, echo });
  const summary: ImageSummary = {
    name: names.local,
    archivedName: names.archived,
    epoch,
    build,
    totalBytes: build.layers.reduce((sum, l) => sum + l.bytes, 0),
  };
  const archiveFile = join(ROOT, ".artifacts", "image", `kyverno-ts-${names.version}.oci.tar`);
  if (!values["no-archive"]) {
    const archive = await exportArchive({
      tools,
      source: build.tag,
      name: names.archived,
      file: archiveFile,
      epoch,
    });
    summary.archive = { ...archive, sha256: await fileSha256(archive.file) };
  }

  if (values.check) {
    const checkTag = `localhost/kyverno-ts:check-${names.version}`;
    const restaged = stageContext({ root: ROOT, dir: `${contextDir}-check`, epoch });
    const restagedDiffers = build.layers
      .filter((l, i) => l.contextDigest !== restaged.contextDigests[i])
      .map((l) => l.content);
    const again = await buildImage({
      root: ROOT,
      tools,
      epoch,
      staged: restagedDiffers.length === 0 ? restaged : staged,
      tag: checkTag,
      echo,
    });
    rmSync(restaged.dir, { recursive: true, force: true });
    const check: ReproducibilityCheck = {
      seconds: restaged.seconds + again.seconds.build,
      restagedDiffers,
      layers: again.layers.map((l, i) => ({
        content: l.content,
        sameDigest: l.digest === build.layers[i]?.digest,
      })),
      imageId: again.imageId === build.imageId,
      manifest: again.manifestDigest === build.manifestDigest,
    };
    if (summary.archive) {
      const file = join(ROOT, ".artifacts", "image", "check.oci.tar");
      await exportArchive({ tools, source: checkTag, name: names.archived, file, epoch });
      check.archive = (await fileSha256(file)) === summary.archive.sha256;
      rmSync(file);
    }
    await tools.check("podman", ["untag", checkTag, checkTag]);
    summary.reproducible = check;
  }
  // Untagged leftovers of earlier builds and the intermediate images (each vfs layer is a full copy).
  await tools.run("podman", ["image", "prune", "--force"]);
  rmSync(contextDir, { recursive: true, force: true });

  mkdirSync(join(ROOT, ".artifacts", "image"), { recursive: true });
  writeFileSync(join(ROOT, ".artifacts", "image", "summary.json"), `${JSON.stringify(summary, null, 2)}\n`);
  if (values.json) process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  else process.stdout.write(`${describe(summary)}\n`);
  if (summary.reproducible && !reproduced(summary.reproducible)) {
    process.stderr.write("not reproducible: the second build from the same inputs differs (see above)\n");
    return 1;
  }
  return 0;
}

try {
  process.exitCode = await main();
} catch (error) {
  process.stderr.write(`npm run image: ${(error as Error).message}\n`);
  process.exitCode = 2;
}
