import { describe, expect, it } from "vitest";
import { podmanArgs } from "./podman-runtime.js";
import type { ContainerLaunch } from "./types.js";

const launch: ContainerLaunch = {
  id: "kyverno/pod-1/admission-controller",
  image: "kyverno-ts:0.1.0",
  argv: ["/usr/bin/node", "/repo/packages/cli/dist/bin.js", "admission", "--port=9443"],
  command: undefined,
  args: ["admission", "--port=9443"],
  env: { PATH: "/usr/bin", POD_NAME: "pod-1", KYVERNO_NAMESPACE: "kyverno" },
  workingDir: "/tmp",
  mounts: [
    {
      hostPath: "/state/pod-1/serviceaccount",
      containerPath: "/var/run/secrets/kubernetes.io/serviceaccount",
      readOnly: true,
    },
    { hostPath: "/state/pod-1/volumes/tmp", containerPath: "/tmp", readOnly: false },
  ],
  netns: { name: "kubelet-abc12-0", path: "/run/netns/kubelet-abc12-0" },
  user: { uid: 65532, gid: 65532, groups: [] },
  readOnlyRootFilesystem: true,
  dropAllCapabilities: true,
  noNewPrivileges: true,
  scratchDir: "/state/pod-1/containers/admission-controller-0",
};

describe("a container under podman", () => {
  it("podman mode: the Pod's network namespace, security context and mounts; the image keeps its entrypoint", () => {
    const args = podmanArgs(launch, "localhost/kyverno-ts:0.1.0", "kubelet-abc12-0-admission-controller");
    expect(args).toContain("--network=ns:/run/netns/kubelet-abc12-0");
    expect(args).toEqual(
      expect.arrayContaining([
        "--user=65532:65532",
        "--read-only",
        "--cap-drop=ALL",
        "--security-opt=no-new-privileges",
      ]),
    );
    expect(args).toContain(
      "--volume=/state/pod-1/serviceaccount:/var/run/secrets/kubernetes.io/serviceaccount:ro",
    );
    expect(args).toContain("--env=POD_NAME=pod-1");
    expect(args).not.toContain("--env=PATH=/usr/bin");
    expect(args.some((a) => a.startsWith("--entrypoint"))).toBe(false);
    expect(args.slice(-3)).toEqual(["localhost/kyverno-ts:0.1.0", "admission", "--port=9443"]);
  });
});
