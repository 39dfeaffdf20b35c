/**
 * The images the kubelet can run and what each runs: `kyverno-ts` (the repository's built CLI, or the
 * built image under podman) and `kubectl` (the machine's kubectl binary). Any other image is refused
 * with a message saying so (the Pod shows `ErrImagePull`).
 */

/** The parts of an image's config the kubelet honours. */
export interface ImageConfig {
  /** `kyverno-ts` or `kubectl`. */
  kind: "kyverno-ts" | "kubectl";
  entrypoint: string[];
  cmd: string[];
  env: Record<string, string>;
  workingDir: string;
  /** The image's `USER` (`undefined`: root). */
  user: { uid: number; gid: number } | undefined;
}

/** Where the programs behind the images are on this machine. */
export interface ImageSources {
  /** The Node.js binary (default: the running one). */
  node: string;
  /** The repository root (its `packages/cli/dist/bin.js` is the `kyverno-ts` entrypoint). */
  repoRoot: string;
  /** The kubectl binary. */
  kubectl: string;
}

const PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/** The repository part of an image reference (`registry.k8s.io/kubectl:v1.33.4` → `kubectl`). */
export function imageRepository(image: string): string {
  const withoutDigest = image.split("@")[0] ?? image;
  const lastSlash = withoutDigest.lastIndexOf("/");
  const tail = withoutDigest.slice(lastSlash + 1);
  return tail.split(":")[0] ?? tail;
}

/** The config of a supported image, or a message saying why it cannot run here. */
export function resolveImage(image: string, sources: ImageSources): ImageConfig | { unsupported: string } {
  const repository = imageRepository(image);
  if (repository === "kyverno-ts")
    return {
      kind: "kyverno-ts",
      entrypoint: [sources.node, `${sources.repoRoot}/packages/cli/dist/bin.js`],
      cmd: ["--help"],
      env: { PATH, NODE_ENV: "production", HOME: "/home/nonroot" },
      workingDir: "/tmp",
      user: { uid: 65532, gid: 65532 },
    };
  if (repository === "kubectl")
    return {
      kind: "kubectl",
      entrypoint: [sources.kubectl],
      cmd: [],
      env: { PATH, HOME: "/home/nonroot" },
      workingDir: "/",
      user: { uid: 65532, gid: 65532 },
    };
  return {
    unsupported: `image ${image} is not supported by the test kubelet: only kyverno-ts (the repository's CLI or built image) and kubectl run`,
  };
}
