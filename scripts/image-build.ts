/**
 * Builds the kyverno-ts image: stages the build context (`.artifacts/image/context/{runtime,deps,app}`)
 * from local inputs with fixed metadata, then `buildah bud --layers --no-cache --timestamp <epoch>` of the
 * repository's `Containerfile`, so the same inputs give the same layers, config and manifest digests.
 */
import { createHash } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { type AppSummary, stageApp } from "./image-app.ts";
import { type DependencySummary, resolvePackages, stageDependencies } from "./image-deps.ts";
import { type RuntimeSummary, stageRuntime } from "./image-runtime.ts";
import { createStage } from "./image-stage.ts";
import type { ContainerTools } from "./image-tools.ts";

/** The image's name in podman's store, and the name the OCI archive carries. */
export function imageNames(root: string): { version: string; local: string; archived: string } {
  const { version } = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string };
  return {
    version,
    local: `localhost/kyverno-ts:${version}`,
    archived: `docker.io/library/kyverno-ts:${version}`,
  };
}

/** A staged build context (`<dir>/{runtime,deps,app}`) and what went into it. */
export interface StagedContext {
  dir: string;
  /** Digest of each layer's folder, in layer order (see `Stage.digest`). */
  contextDigests: string[];
  seconds: number;
  runtime: RuntimeSummary;
  dependencies: DependencySummary;
  app: AppSummary;
}

/** Stages the build context into `dir` (emptied first) from the repository at `root`. */
export function stageContext(options: {
  root: string;
  dir: string;
  epoch: number;
  updateLock?: boolean;
}): StagedContext {
  const { root, dir, epoch } = options;
  const started = performance.now();
  rmSync(dir, { recursive: true, force: true });
  const runtimeStage = createStage(join(dir, "runtime"), epoch);
  const runtime = stageRuntime({ root, stage: runtimeStage, updateLock: options.updateLock ?? false });
  const packages = resolvePackages(root);
  const depsStage = createStage(join(dir, "deps"), epoch);
  const dependencies = stageDependencies(root, packages.dependencies, depsStage);
  const appStage = createStage(join(dir, "app"), epoch);
  const app = stageApp(root, packages.workspaces, appStage);
  const stages = [runtimeStage, depsStage, appStage];
  for (const stage of stages) stage.finish();
  const contextDigests = stages.map((stage) => stage.digest());
  return { dir, contextDigests, seconds: (performance.now() - started) / 1000, runtime, dependencies, app };
}

/** Options of `buildImage`. */
export interface BuildOptions {
  root: string;
  tools: ContainerTools;
  staged: StagedContext;
  /** The tag to give the result (default: `imageNames(root).local`). */
  tag?: string;
  /** Fixed timestamp (seconds) of the image (and, through the staged files, of every file in it). */
  epoch: number;
  /** Echo buildah's progress to stderr. */
  echo?: boolean;
}

/** One layer of the built image. */
export interface LayerInfo {
  /** What the layer holds (the COPY source folder). */
  content: string;
  /** Uncompressed digest (the diff ID) and size. */
  digest: string;
  bytes: number;
  /** Digest of the staged context folder the layer was built from (see `Stage.digest`). */
  contextDigest: string;
}

/** What `buildImage` built. */
export interface BuildResult {
  tag: string;
  /** The config digest (podman's image ID). */
  imageId: string;
  /** The manifest digest in podman's store (uncompressed layers). */
  manifestDigest: string;
  layers: LayerInfo[];
  seconds: { stage: number; build: number };
  runtime: RuntimeSummary;
  dependencies: DependencySummary;
  app: AppSummary;
}

const LAYER_CONTENTS = ["runtime", "deps", "app"] as const;

interface StoredManifest {
  layers: Array<{ digest: string; size: number }>;
}

/** Builds the image from a staged context with buildah. */
export async function buildImage(options: BuildOptions): Promise<BuildResult> {
  const { root, tools, epoch, staged } = options;
  const names = imageNames(root);
  const tag = options.tag ?? names.local;
  const started = performance.now();
  await tools.check(
    "buildah",
    [
      "bud",
      // One layer per COPY, always built anew: with the vfs store a cached build is no faster (checking
      // the cache hashes the context, and each step after it copies the root filesystem), and
      // `podman image prune` drops the metadata-only steps the cache would start from.
      "--layers",
      "--no-cache",
      `--timestamp=${epoch}`,
      "--format=oci",
      `--build-arg=VERSION=${names.version}`,
      `--file=${join(root, "Containerfile")}`,
      `--tag=${tag}`,
      staged.dir,
    ],
    { echo: options.echo ?? false },
  );
  const built = performance.now();

  const imageId = (await tools.check("podman", ["image", "inspect", "--format", "{{.Id}}", tag])).trim();
  const raw = await tools.check("skopeo", ["inspect", "--raw", `containers-storage:${tag}`]);
  const manifestDigest = `sha256:${createHash("sha256").update(raw).digest("hex")}`;
  const stored = JSON.parse(raw) as StoredManifest;
  if (stored.layers.length !== LAYER_CONTENTS.length)
    throw new Error(
      `expected ${LAYER_CONTENTS.length} layers (runtime, deps, app), the image has ${stored.layers.length}`,
    );
  return {
    tag,
    imageId,
    manifestDigest,
    layers: stored.layers.map((l, i) => ({
      content: LAYER_CONTENTS[i] ?? "?",
      digest: l.digest,
      bytes: l.size,
      contextDigest: staged.contextDigests[i] ?? "",
    })),
    seconds: { stage: staged.seconds, build: (built - started) / 1000 },
    runtime: staged.runtime,
    dependencies: staged.dependencies,
    app: staged.app,
  };
}
