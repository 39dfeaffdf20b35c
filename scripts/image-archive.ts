/**
 * The image as an OCI archive (`.oci.tar`) that `kind load image-archive`, k3s's image import and
 * `ctr images import` accept. skopeo writes the OCI layout (gzip layers: deterministic for the same
 * input); its index then gets both names containerd looks for:
 *
 * - `io.containerd.image.name` — the full reference (`docker.io/library/kyverno-ts:<version>`), which
 *   containerd's importer takes as is. With the OCI tag alone, `ctr images import` (and kind, which
 *   calls it) names the image `import-<date>:<version>`, which no Pod spec asks for (checked with
 *   containerd 1.6.20; see image/README.md).
 * - `org.opencontainers.image.ref.name` — the tag, as the OCI spec and `docker save` write it.
 *
 * The tar itself is written with sorted names, a fixed mtime and owner, so the same image gives the
 * same archive bytes.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { ContainerTools } from "./image-tools.ts";

/** Options of `exportArchive`. */
export interface ArchiveOptions {
  tools: ContainerTools;
  /** The image in podman's store (`localhost/kyverno-ts:0.1.0`). */
  source: string;
  /** The name the archive carries (`docker.io/library/kyverno-ts:0.1.0`). */
  name: string;
  /** The archive to write. */
  file: string;
  /** Fixed mtime (seconds) of the tar entries. */
  epoch: number;
}

/** What `exportArchive` wrote. */
export interface ArchiveSummary {
  file: string;
  bytes: number;
  /** The manifest digest in the archive (what containerd reports as the image digest). */
  manifestDigest: string;
  /** Digest and compressed size of each layer blob in the archive, in image order. */
  layerDigests: string[];
  layerBytes: number[];
}

interface OciIndex {
  manifests: Array<{ digest: string; annotations?: Record<string, string> }>;
}

interface OciManifest {
  layers: Array<{ digest: string; size: number }>;
}

/** Writes the OCI archive of `source` to `file`, named `name`. */
export async function exportArchive(options: ArchiveOptions): Promise<ArchiveSummary> {
  const layout = `${options.file}.layout`;
  rmSync(layout, { recursive: true, force: true });
  mkdirSync(dirname(options.file), { recursive: true });
  const tag = options.name.slice(options.name.lastIndexOf(":") + 1);
  await options.tools.check("skopeo", [
    "copy",
    "--quiet",
    `containers-storage:${options.source}`,
    `oci:${layout}:${tag}`,
  ]);

  const indexFile = join(layout, "index.json");
  const index = JSON.parse(readFileSync(indexFile, "utf8")) as OciIndex;
  const [entry] = index.manifests;
  if (entry === undefined || index.manifests.length !== 1)
    throw new Error(`${indexFile}: expected one manifest, found ${index.manifests.length}`);
  entry.annotations = { "io.containerd.image.name": options.name, "org.opencontainers.image.ref.name": tag };
  writeFileSync(indexFile, JSON.stringify(index));
  const manifest = JSON.parse(
    readFileSync(join(layout, "blobs", "sha256", entry.digest.replace(/^sha256:/, "")), "utf8"),
  ) as OciManifest;

  rmSync(options.file, { force: true });
  execFileSync("tar", [
    "--create",
    `--file=${options.file}`,
    `--directory=${layout}`,
    "--sort=name",
    "--format=ustar",
    `--mtime=@${options.epoch}`,
    "--owner=0",
    "--group=0",
    "--numeric-owner",
    "--mode=u=rwX,go=rX",
    "oci-layout",
    "index.json",
    "blobs",
  ]);
  rmSync(layout, { recursive: true, force: true });
  return {
    file: options.file,
    bytes: statSync(options.file).size,
    manifestDigest: entry.digest,
    layerDigests: manifest.layers.map((l) => l.digest),
    layerBytes: manifest.layers.map((l) => l.size),
  };
}
