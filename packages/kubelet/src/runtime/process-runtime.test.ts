import { describe, expect, it } from "vitest";
import { containerScript } from "./process-runtime.js";
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

describe("a container as a local process", () => {
  it("process mode: volumes bound at their paths, a read-only root, then chroot and setpriv as the container's user", () => {
    const script = containerScript(launch, ["/repo"]).split("\n");
    const root = "/state/pod-1/containers/admission-controller-0/rootfs";
    expect(script).toContain(
      `mount --bind /state/pod-1/serviceaccount ${root}/var/run/secrets/kubernetes.io/serviceaccount`,
    );
    expect(script).toContain(`mount -o remount,bind,ro ${root}/var/run/secrets/kubernetes.io/serviceaccount`);
    expect(script).not.toContain(`mount -o remount,bind,ro ${root}/tmp`);
    expect(script).toContain(`mount -o remount,bind,ro ${root}/repo`);
    expect(script.indexOf(`mount -o remount,ro,bind ${root}`)).toBeGreaterThan(
      script.findIndex((l) => l.includes("serviceaccount")),
    );
    expect(script.at(-1)).toBe(
      `exec chroot ${root} env -C /tmp setpriv --reuid=65532 --regid=65532 --clear-groups --inh-caps=-all --bounding-set=-all --no-new-privs -- /usr/bin/node /repo/packages/cli/dist/bin.js admission --port=9443`,
    );
  });
});
