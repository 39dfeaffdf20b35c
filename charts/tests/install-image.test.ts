/**
 * The kyverno-ts chart run from the built image under podman (the test kubelet's podman mode): each
 * replica is `podman run` of `localhost/kyverno-ts:<version>` in its Pod's network namespace, with the
 * chart's security context (uid 65532, read-only root, capabilities dropped) and the ServiceAccount
 * token and volumes bind-mounted at their real paths. Installs the chart, enforces the policies,
 * checks a denial and uninstalls (the hook's kubectl runs as a local process: the image has no kubectl).
 * Builds the image from the current build output first (`node scripts/image.ts --no-archive`, about
 * a minute; `KUBELET_E2E_REUSE_IMAGE=1` reuses an existing one).
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createContainerTools } from "../../scripts/image-tools.ts";
import { PRIVILEGED_POD } from "./cluster/admission-loop.ts";
import {
  clusterUnavailable,
  errorsOf,
  eventually,
  REPO_ROOT,
  refusedDuringUninstall,
  startTestCluster,
  type TestCluster,
} from "./cluster/cluster.ts";

const has = (tool: string) => spawnSync("sh", ["-c", `command -v ${tool}`], { stdio: "ignore" }).status === 0;
const unavailable =
  (await clusterUnavailable()) ??
  (["podman", "buildah", "runc"].every(has)
    ? undefined
    : "podman, buildah or runc is not installed (bash scripts/ensure-podman.sh)");
if (unavailable !== undefined) console.warn(`chart install e2e (podman) skipped: ${unavailable}`);

const VERSION = (JSON.parse(readFileSync(`${REPO_ROOT}package.json`, "utf8")) as { version: string }).version;
const numbers: Record<string, number> = {};

// In CI a missing tool fails the suite (with the reason) instead of skipping it.
describe.skipIf(unavailable !== undefined && process.env.CI !== "true")(
  "the kyverno-ts chart run from the built image under podman",
  { timeout: 300000 },
  () => {
    let cluster: TestCluster;
    const tools = createContainerTools({ root: REPO_ROOT });
    let image = "";
    const started = Date.now();
    beforeAll(async () => {
      if (unavailable !== undefined) throw new Error(unavailable);
      tools.prepare();
      const source = `localhost/kyverno-ts:${VERSION}`;
      // Built from the current build output every time: an image of older code would not know the
      // chart's flags (a changed chart and a stale image fail the install, not the kubelet).
      const reuse =
        process.env.KUBELET_E2E_REUSE_IMAGE === "1" &&
        (await tools.run("podman", ["image", "exists", source])).code === 0;
      if (!reuse) {
        const buildStart = Date.now();
        const build = spawnSync(process.execPath, ["scripts/image.ts", "--no-archive"], {
          cwd: REPO_ROOT,
          encoding: "utf8",
          env: tools.env,
        });
        if (build.status !== 0) throw new Error(`building the image failed: ${build.stderr}`);
        numbers.imageBuildMs = Date.now() - buildStart;
      }
      // A tag of our own: an image build running beside this test (scripts/image.test.ts) retags the version.
      image = `localhost/kyverno-ts:kubelet-e2e-${process.pid}`;
      await tools.check("podman", ["tag", source, image]);
      cluster = await startTestCluster({ mode: "podman", podman: { image, env: tools.env } });
    }, 240000);
    afterAll(async () => {
      await cluster?.stop();
      if (image !== "") await tools.run("podman", ["untag", image, image]);
      numbers.totalMs = Date.now() - started;
      console.log(`chart install e2e (podman) numbers: ${JSON.stringify(numbers)}`);
    }, 120000);
    afterEach(async (context) => {
      if (context.task.result?.state === "fail") console.error(await cluster.diagnostics());
    });

    it("installs the chart, whose containers run the image as uid 65532 on a read-only root", async () => {
      const install = await cluster.helm([
        "install",
        "kyverno",
        `${REPO_ROOT}charts/kyverno-ts`,
        "-n",
        "kyverno",
        "--create-namespace",
        "-f",
        `${REPO_ROOT}examples/helm/values-minimal.yaml`,
        "--wait",
        "--timeout",
        "4m",
      ]);
      expect(errorsOf(install.stderr)).toBe("");
      expect(install.code).toBe(0);
      numbers.kyvernoInstallMs = install.ms;
      const ps = await tools.check("podman", ["ps", "--format", "{{.Image}} {{.Names}}"]);
      const ours = ps
        .split("\n")
        .filter((l) => l.startsWith(`${image} kubelet-${cluster.network.runId}-`))
        .map((l) => l.split(" ")[1] ?? "");
      // One container per controller of the default values: admission, reports, background, cleanup.
      expect(ours).toHaveLength(4);
      for (const name of ours) {
        const config = await tools.check("podman", [
          "inspect",
          "--format",
          "{{.Config.User}} {{.HostConfig.ReadonlyRootfs}} {{.HostConfig.CapDrop}} {{.HostConfig.NetworkMode}}",
          name,
        ]);
        expect(config.trim()).toMatch(
          /^65532:65532 true \[[^\]]*CAP_CHOWN[^\]]*CAP_NET_RAW[^\]]*CAP_SYS_CHROOT\] ns:\/run\/netns\/kubelet-/,
        );
      }
      const logs = await cluster.kubectl([
        "logs",
        "-n",
        "kyverno",
        "-l",
        "app.kubernetes.io/component=admission-controller",
      ]);
      expect(logs.stdout).toContain("serving admission requests");
      expect(cluster.forbiddenLines()).toEqual([]);
    });

    it("enforces the policies: a privileged Pod is denied", async () => {
      ok(await cluster.kubectl(["create", "namespace", "team-a"]));
      const start = Date.now();
      const policies = await cluster.helm([
        "install",
        "kyverno-ts-policies",
        `${REPO_ROOT}charts/kyverno-ts-policies`,
        "-f",
        `${REPO_ROOT}examples/helm/values-policies-production.yaml`,
      ]);
      expect(policies.code).toBe(0);
      const denial = await eventually(
        "a denial of a privileged Pod",
        async () => {
          const r = await cluster.kubectl(
            ["create", "--dry-run=server", "-f", "-"],
            JSON.stringify(PRIVILEGED_POD),
          );
          return r.stderr.includes("disallow-privileged-containers") ? r.stderr : undefined;
        },
        120000,
        250,
      );
      numbers.installToDenialMs = Date.now() - start;
      expect(denial).toContain('admission webhook "validate.kyverno.svc-fail" denied the request');
      expect(cluster.forbiddenLines()).toEqual([]);
    });

    it("uninstalls: the hook removes the webhook configurations and the containers are gone", async () => {
      expect((await cluster.helm(["uninstall", "kyverno-ts-policies", "--wait"])).code).toBe(0);
      expect(cluster.forbiddenLines()).toEqual([]);
      const uninstall = await cluster.helm([
        "uninstall",
        "kyverno",
        "-n",
        "kyverno",
        "--wait",
        "--timeout",
        "4m",
      ]);
      expect(uninstall.code).toBe(0);
      numbers.uninstallMs = uninstall.ms;
      expect((await cluster.kubectl(["get", "validatingwebhookconfigurations", "-o", "name"])).stdout).toBe(
        "",
      );
      await eventually(
        "the containers to stop",
        async () => {
          const ps = await tools.check("podman", ["ps", "-a", "--format", "{{.Names}}"]);
          return ps.includes(`kubelet-${cluster.network.runId}-`) ? undefined : true;
        },
        60000,
      );
      // The 403s the uninstall causes by design (refusedDuringUninstall; none were there before).
      expect(cluster.forbiddenLines().filter((l) => !refusedDuringUninstall(l))).toEqual([]);
    });
  },
);

function ok(r: { code: number; stderr: string }): void {
  expect(errorsOf(r.stderr)).toBe("");
  expect(r.code).toBe(0);
}
