/**
 * End to end: builds the kyverno-ts image twice with `node scripts/image.ts --check` (the second
 * build must give the same digests), then runs it with podman as a Pod with the expected security
 * context would (read-only root, no capabilities, uid 65532, /tmp the only writable place), and
 * imports the OCI archive into a throw-away containerd the way kind does.
 *
 * Needs buildah, podman, runc and skopeo (containerd for the import test): `bash scripts/ensure-podman.sh`
 * installs them, and `.ci/run` does. Without them the suite is skipped with the reason, except in CI
 * (CI=true), where it fails. About 2 minutes on the 2-core machine; `npm run test:image` runs it alone.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ImageSummary } from "./image.ts";
import { startContainerd } from "./image-containerd.ts";
import { type PodLikeServer, runPodLike, startPodLike } from "./image-pod.ts";
import { createContainerTools } from "./image-tools.ts";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const has = (tool: string) => spawnSync("sh", ["-c", `command -v ${tool}`], { stdio: "ignore" }).status === 0;
const missing = ["buildah", "podman", "runc", "skopeo"].filter((t) => !has(t));
const skipReason =
  missing.length > 0 && process.env.CI !== "true"
    ? ` (skipped: ${missing.join(", ")} not installed; run \`bash scripts/ensure-podman.sh\`)`
    : "";
const VERSION = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;
const IMAGE = `localhost/kyverno-ts:${VERSION}`;

/** One entry of a layer tar, as `tar -tv --numeric-owner` lists it. */
interface LayerEntry {
  mode: string;
  owner: string;
  date: string;
  path: string;
}

function layerEntries(archive: string, digest: string): LayerEntry[] {
  const blob = execFileSync("tar", ["-xOf", archive, `blobs/sha256/${digest.replace(/^sha256:/, "")}`], {
    maxBuffer: 512 << 20,
  });
  const listing = execFileSync("tar", ["-tvz", "--numeric-owner"], {
    input: blob,
    maxBuffer: 64 << 20,
    env: { ...process.env, TZ: "UTC" },
    encoding: "utf8",
  });
  return listing
    .trim()
    .split("\n")
    .map((line) => {
      const [mode = "", owner = "", , date = "", time = "", ...rest] = line.split(/\s+/);
      return { mode, owner, date: `${date} ${time}`, path: rest.join(" ").replace(/ -> .*$/, "") };
    });
}

function post(
  address: string,
  path: string,
  ca: Buffer,
  body: unknown,
): Promise<{ status: number; json: unknown }> {
  const [host, port] = address.split(":");
  return new Promise((resolve, reject) => {
    const req = request(
      { host, port: Number(port), path, method: "POST", ca, headers: { "content-type": "application/json" } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString("utf8")) }),
        );
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}

/** Polls `probe` until it resolves, while the container runs; fails with its logs otherwise. */
async function waitFor<T>(server: PodLikeServer, probe: () => Promise<T>, seconds = 60): Promise<T> {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    try {
      return await probe();
    } catch (error) {
      if (!(await server.running()) || Date.now() > deadline)
        throw new Error(
          `${server.name} not ready (${(error as Error).message}); logs:\n${await server.logs()}`,
        );
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

const privilegedPod = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "debug", namespace: "default" },
  spec: { containers: [{ name: "shell", image: "busybox:1.36", securityContext: { privileged: true } }] },
};

describe.skipIf(skipReason !== "")(`the kyverno-ts image${skipReason}`, () => {
  const tools = createContainerTools({ root: ROOT });
  let summary: ImageSummary;
  let work: string;

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), "kyverno-ts-image-test-"));
    tools.prepare();
    // Niced: the build's strip, buildah and gzip would otherwise take both cores from the tests that
    // run beside this file in npm test.
    const script = join(ROOT, "scripts", "image.ts");
    const run = spawnSync("nice", ["-n", "10", process.execPath, script, "--check", "--json"], {
      cwd: ROOT,
      encoding: "utf8",
      maxBuffer: 16 << 20,
    });
    if (run.status !== 0)
      throw new Error(`node scripts/image.ts --check exited with ${run.status}:\n${run.stderr}`);
    summary = JSON.parse(run.stdout) as ImageSummary;
  }, 900_000);

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it("builds reproducibly: a second build from the same inputs gives the same layers, image, manifest and archive", () => {
    const check = summary.reproducible;
    expect(check?.layers.map((l) => [l.content, l.sameDigest])).toEqual([
      ["runtime", true],
      ["deps", true],
      ["app", true],
    ]);
    expect([check?.imageId, check?.manifest, check?.archive]).toEqual([true, true, true]);
    // Staging again from an unchanged repository gives the same context; another build rewriting
    // dist/ meanwhile can only change the code layer's.
    expect(check?.restagedDiffers.filter((layer) => layer !== "app")).toEqual([]);
  });

  it("has three layers: runtime, then dependencies, then our code, smallest last, each holding only its part", () => {
    const [runtime, deps, app] = summary.build.layers;
    expect(summary.build.layers.map((l) => l.content)).toEqual(["runtime", "deps", "app"]);
    expect(app!.bytes).toBeLessThan(deps!.bytes);
    expect(deps!.bytes).toBeLessThan(runtime!.bytes);
    const archive = summary.archive!.file;
    const parts = summary.archive!.layerDigests.map((digest) => {
      const entries = layerEntries(archive, digest);
      return entries.filter((e) => !e.mode.startsWith("d")).map((e) => e.path);
    });
    expect(
      parts[0]!.filter((p) => !/^(usr\/local\/bin\/node|usr\/bin\/chrt|lib\/|lib64\/|etc\/)/.test(p)),
    ).toEqual([]);
    expect(
      parts[1]!.filter(
        (p) => !p.startsWith("app/node_modules/") || p.startsWith("app/node_modules/@kyverno-ts/"),
      ),
    ).toEqual([]);
    expect(parts[2]!.filter((p) => !/^app\/(packages|policies|node_modules\/@kyverno-ts)\//.test(p))).toEqual(
      [],
    );
    expect(parts[2]).toContain("app/packages/cli/dist/bin.js");
    expect(parts[2]).toContain("app/packages/reporter-ui/dist/index.html");
  }, 60_000);

  it("ships no TypeScript sources, declarations, source maps, tests, test data or devDependencies; root-owned files at the fixed time", () => {
    const entries = summary.archive!.layerDigests.flatMap((d) => layerEntries(summary.archive!.file, d));
    const paths = entries.map((e) => e.path);
    expect(paths.filter((p) => /\.([mc]?ts|map)$|\.test\.[mc]?js$|\/testdata\//.test(p))).toEqual([]);
    const rootManifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
      devDependencies: Record<string, string>;
    };
    const devOnly = Object.keys(rootManifest.devDependencies);
    expect(paths.filter((p) => devOnly.some((d) => p.startsWith(`app/node_modules/${d}/`)))).toEqual([]);
    expect(new Set(entries.map((e) => e.owner))).toEqual(new Set(["0/0"]));
    const epoch = new Date(summary.epoch * 1000).toISOString().replace("T", " ").slice(0, 16);
    expect(new Set(entries.map((e) => e.date))).toEqual(new Set([epoch]));
    expect(entries.find((e) => e.path === "tmp/")?.mode).toBe("drwxrwxrwt");
  }, 60_000);

  it("runs as uid 65532 with the CLI as entrypoint and prints its version", async () => {
    const config = JSON.parse(
      await tools.check("podman", ["image", "inspect", "--format", "{{json .Config}}", IMAGE]),
    );
    expect(config.User).toBe("65532:65532");
    expect(config.Entrypoint).toEqual(["/usr/local/bin/node", "/app/packages/cli/dist/bin.js"]);
    const result = await runPodLike(tools, IMAGE, ["--version"]);
    expect([result.code, result.stdout.trim(), result.stderr]).toEqual([0, VERSION, ""]);
  }, 60_000);

  it("says that the development sandbox is not in the image instead of failing on a missing package", async () => {
    const result = await runPodLike(tools, IMAGE, ["sandbox"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("not part of the container image");
  }, 60_000);

  it("applies a bundled policy to a mounted manifest: exit 1 for a privileged Pod, 0 once it is fixed", async () => {
    const dir = join(work, "manifests");
    mkdirSync(dir);
    writeFileSync(join(dir, "pod.json"), JSON.stringify(privilegedPod));
    const policy = "/app/policies/disallow-privileged-containers.yaml";
    const mounts = [{ host: dir, container: "/manifests" }];
    const failed = await runPodLike(
      tools,
      IMAGE,
      ["apply", policy, "--resource", "/manifests/pod.json"],
      mounts,
    );
    expect(failed.code).toBe(1);
    expect(failed.stdout).toContain(
      "policy disallow-privileged-containers -> resource default/Pod/debug failed",
    );
    expect(failed.stdout).toContain("pass: 0, fail: 1");
    const fixed = structuredClone(privilegedPod);
    fixed.spec.containers[0]!.securityContext.privileged = false;
    writeFileSync(join(dir, "pod.json"), JSON.stringify(fixed));
    const passed = await runPodLike(
      tools,
      IMAGE,
      ["apply", policy, "--resource", "/manifests/pod.json"],
      mounts,
    );
    expect([passed.code, passed.stdout]).toEqual([0, expect.stringContaining("pass: 1, fail: 0")]);
  }, 60_000);

  it("serves admission reviews over HTTPS from a read-only root: the Enforce bundle denies a privileged Pod", async () => {
    const enforce = await runPodLike(tools, IMAGE, ["bundle", "--action", "Enforce"]);
    expect(enforce.code).toBe(0);
    const policies = join(work, "policies");
    mkdirSync(policies);
    writeFileSync(join(policies, "enforce.yaml"), enforce.stdout);
    const server = await startPodLike(tools, {
      name: `kyverno-ts-image-test-admission-${process.pid}`,
      image: IMAGE,
      args: ["admission", "--standalone", "--policies", "/policies", "--san", "127.0.0.1"],
      ports: [9443],
      mounts: [{ host: policies, container: "/policies" }],
    });
    try {
      const ca = await waitFor(server, async () => {
        const match = (await server.logs()).match(/^caBundle: (\S+)$/m);
        if (!match?.[1]) throw new Error("no caBundle logged yet");
        return Buffer.from(match[1], "base64");
      });
      const address = await server.address(9443);
      const uid = randomUUID();
      const review = await waitFor(server, () =>
        post(address, "/validate/fail", ca, {
          apiVersion: "admission.k8s.io/v1",
          kind: "AdmissionReview",
          request: {
            uid,
            kind: { group: "", version: "v1", kind: "Pod" },
            resource: { group: "", version: "v1", resource: "pods" },
            name: "debug",
            namespace: "default",
            operation: "CREATE",
            userInfo: { username: "kubernetes-admin", groups: ["system:masters", "system:authenticated"] },
            object: privilegedPod,
            dryRun: false,
          },
        }),
      );
      expect(review.status).toBe(200);
      const response = (
        review.json as { response: { uid: string; allowed: boolean; status?: { message?: string } } }
      ).response;
      expect([response.uid, response.allowed]).toEqual([uid, false]);
      expect(response.status?.message).toContain("disallow-privileged-containers");
      // The CLI re-ran itself (process.execve, same pid) with the server's V8 flags.
      const cmdline = await server.exec([
        "/usr/local/bin/node",
        "-e",
        "process.stdout.write(require('fs').readFileSync('/proc/1/cmdline', 'utf8'))",
      ]);
      expect(cmdline.stdout.split("\0")).toEqual(
        expect.arrayContaining(["--max-semi-space-size=4", "--no-allocation-site-pretenuring", "admission"]),
      );
      // The evaluation workers' chrt (--evaluationWorkerScheduling=idle) runs as the non-root user.
      const chrt = await server.exec(["/usr/bin/chrt", "--pid", "1"]);
      expect(chrt.stdout).toContain("current scheduling policy: SCHED_OTHER");
      await expectReadOnlyRoot(server);
    } finally {
      await server.remove();
    }
  }, 120_000);

  it("runs Policy Reporter without a cluster: /healthz answers and the dashboard is served", async () => {
    const server = await startPodLike(tools, {
      name: `kyverno-ts-image-test-reporter-${process.pid}`,
      image: IMAGE,
      args: ["reporter", "--port", "8080"],
      ports: [8080],
    });
    try {
      const address = await server.address(8080);
      const health = await waitFor(server, async () => {
        const res = await fetch(`http://${address}/healthz`);
        return { status: res.status, body: await res.json() };
      });
      expect(health).toEqual({ status: 200, body: { status: "ok" } });
      const page = await fetch(`http://${address}/`);
      expect([page.status, page.headers.get("content-type")]).toEqual([
        200,
        expect.stringContaining("text/html"),
      ]);
      expect(await server.logs()).toContain("serving the dashboard path=/app/packages/reporter-ui/dist");
      await expectReadOnlyRoot(server);
    } finally {
      await server.remove();
    }
  }, 120_000);

  it.skipIf(!has("containerd") || !has("ctr"))(
    "imports into containerd as kind does, under its name, and containerd runs it",
    async () => {
      const containerd = await startContainerd(join(ROOT, ".artifacts", "containerd"));
      try {
        const archive = summary.archive!.file;
        // kind load image-archive: ctr --namespace=k8s.io images import --all-platforms --digests --snapshotter=… -
        await containerd.ctr(
          ["-n", "k8s.io", "images", "import", "--all-platforms", "--digests", "--snapshotter=native", "-"],
          { stdinFile: archive },
        );
        const names = (await containerd.ctr(["-n", "k8s.io", "images", "ls", "-q"])).trim().split("\n");
        expect(names).toContain(summary.archivedName);
        const version = await containerd.ctr([
          "-n",
          "k8s.io",
          "run",
          "--rm",
          "--read-only",
          "--snapshotter=native",
          summary.archivedName,
          `kyverno-ts-image-test-${process.pid}`,
          "/usr/local/bin/node",
          "/app/packages/cli/dist/bin.js",
          "--version",
        ]);
        expect(version.trim()).toBe(VERSION);
      } finally {
        await containerd.stop();
      }
    },
    180_000,
  );
});

/** Writing anywhere but /tmp fails (EROFS), and the server logged no such failure while it ran. */
async function expectReadOnlyRoot(server: PodLikeServer): Promise<void> {
  const probe = await server.exec([
    "/usr/local/bin/node",
    "-e",
    "for (const p of ['/app/x', '/etc/x', '/x']) { try { require('fs').writeFileSync(p, ''); console.log(p, 'written') } catch (e) { console.log(p, e.code) } } require('fs').writeFileSync('/tmp/x', ''); console.log('/tmp/x ok')",
  ]);
  expect(probe.stdout.trim().split("\n")).toEqual(["/app/x EROFS", "/etc/x EROFS", "/x EROFS", "/tmp/x ok"]);
  expect(await server.logs()).not.toMatch(/EROFS|read-only file system|cannot re-run/i);
}
