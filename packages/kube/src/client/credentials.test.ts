import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { RequestOptions } from "node:https";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { KubeConfig } from "@kubernetes/client-node";
import { afterAll, describe, expect, it } from "vitest";
import { type CredentialsEnvironment, loadCredentials } from "./credentials.js";

const dir = mkdtempSync(join(tmpdir(), "kube-load-credentials-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const write = (name: string, text: string): string => {
  const path = join(dir, name);
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, text);
  return path;
};

/** A kubeconfig of one context `name` (current) on `server`, with `user` as its user's fields. */
const kubeconfig = (name: string, server: string, user: Record<string, unknown> = { token: name }) =>
  JSON.stringify({
    clusters: [{ name, cluster: { server, "insecure-skip-tls-verify": true } }],
    users: [{ name, user }],
    contexts: [{ name, context: { cluster: name, user: name } }],
    "current-context": name,
  });

const EXEC_USER = { exec: { apiVersion: "client.authentication.k8s.io/v1", command: "true" } };

/** The Authorization header `apply` sets. */
const bearer = async (credentials: ReturnType<typeof loadCredentials>): Promise<unknown> => {
  const options: RequestOptions = {};
  await credentials.apply(options);
  return (options.headers as Record<string, unknown> | undefined)?.Authorization;
};

/** An environment with nothing in it: no KUBECONFIG, an empty HOME, no service account. */
const bare = (more: Partial<CredentialsEnvironment> = {}): CredentialsEnvironment => ({
  env: { HOME: mkdtempSync(join(dir, "home-")) },
  serviceAccountDir: join(dir, "no-service-account"),
  platform: "linux",
  ...more,
});

describe("loadCredentials", () => {
  it("reads a kubeconfig string or file natively, with --context", async () => {
    const text = kubeconfig("a", "https://a:6443/");
    const fromString = loadCredentials({ kubeconfig: text });
    expect(fromString).toMatchObject({ via: "native", server: "https://a:6443", proxied: false });
    expect(await bearer(fromString)).toBe("Bearer a");
    const path = write("two", text.replace('"current-context":"a"', '"current-context":"none"'));
    expect(() => loadCredentials({ kubeconfigPath: path })).toThrow(
      `kubeconfig ${path}: context "none" is not defined (contexts: a)`,
    );
    expect(loadCredentials({ kubeconfigPath: path, context: "a" }).server).toBe("https://a:6443");
  });

  it.each([
    ["exec", EXEC_USER],
    ["auth-provider", { "auth-provider": { name: "oidc", config: { "id-token": "x" } } }],
  ])("leaves a kubeconfig with %s to client-node", (_what, user) => {
    const path = write(`fallback-${_what}`, kubeconfig("x", "https://x:6443", user));
    const credentials = loadCredentials({ kubeconfigPath: path });
    expect(credentials).toMatchObject({ via: "client-node", server: "https://x:6443", proxied: false });
  });

  it("leaves a proxied cluster to client-node, which gives the proxy's agent", async () => {
    const text = JSON.stringify({
      clusters: [{ name: "c", cluster: { server: "https://c:6443", "proxy-url": "http://127.0.0.1:3128" } }],
      users: [{ name: "u", user: { token: "t" } }],
      contexts: [{ name: "ctx", context: { cluster: "c", user: "u" } }],
      "current-context": "ctx",
    });
    const credentials = loadCredentials({ kubeconfig: text });
    expect(credentials).toMatchObject({ via: "client-node", proxied: true });
    const options: RequestOptions = {};
    await credentials.apply(options);
    expect(options.agent).toBeDefined();
    expect((options.headers as Record<string, unknown> | undefined)?.Authorization).toBe("Bearer t");
  });

  it("uses a KubeConfig passed in through client-node", () => {
    const kc = new KubeConfig();
    kc.loadFromString(kubeconfig("k", "https://k:6443"));
    expect(loadCredentials({ kubeconfig: kc })).toMatchObject({
      via: "client-node",
      server: "https://k:6443",
    });
  });
});

describe("loadCredentials without a source (client-node's loadFromDefault)", () => {
  it("merges the files of KUBECONFIG: the first defines the cluster, the last current-context wins", async () => {
    const first = write("merge/one", kubeconfig("one", "https://one:6443"));
    const second = write("merge/two", kubeconfig("two", "https://two:6443"));
    const env = { ...bare().env, KUBECONFIG: [first, "", second].join(delimiter) };
    const credentials = loadCredentials({}, bare({ env }));
    expect(credentials).toMatchObject({ via: "native", server: "https://two:6443" });
    expect(loadCredentials({ context: "one" }, bare({ env })).server).toBe("https://one:6443");
    const missing = join(dir, "merge/missing");
    expect(() =>
      loadCredentials({}, bare({ env: { KUBECONFIG: `${first}${delimiter}${missing}` } })),
    ).toThrow(`ENOENT: no such file or directory, open '${missing}'`);
  });

  it("reads ~/.kube/config before the service account", () => {
    const home = mkdtempSync(join(dir, "home-"));
    write(`${home.slice(dir.length + 1)}/.kube/config`, kubeconfig("home", "https://home:6443"));
    const serviceAccountDir = mkdtempSync(join(dir, "sa-"));
    writeFileSync(join(serviceAccountDir, "token"), "sa");
    const env = { HOME: home, KUBERNETES_SERVICE_HOST: "10.0.0.1", KUBERNETES_SERVICE_PORT: "443" };
    expect(loadCredentials({}, bare({ env, serviceAccountDir })).server).toBe("https://home:6443");
    expect(
      loadCredentials({}, bare({ env: { ...env, HOME: join(dir, "nohome") }, serviceAccountDir })).server,
    ).toBe("https://10.0.0.1:443");
  });

  it("uses the service account when asked (inCluster) or when a token is mounted", async () => {
    const serviceAccountDir = mkdtempSync(join(dir, "sa-"));
    writeFileSync(join(serviceAccountDir, "token"), "sa-token");
    writeFileSync(join(serviceAccountDir, "ca.crt"), "CA");
    const env = { KUBERNETES_SERVICE_HOST: "fd00::1", KUBERNETES_SERVICE_PORT: "6443" };
    const credentials = loadCredentials({ inCluster: true }, { env, serviceAccountDir });
    expect(credentials).toMatchObject({ via: "native", server: "https://[fd00::1]:6443" });
    expect(await bearer(credentials)).toBe("Bearer sa-token");
    expect(() => loadCredentials({ inCluster: true, context: "other" }, { env, serviceAccountDir })).toThrow(
      `in-cluster service account ${serviceAccountDir}: context "other" is not defined (contexts: inClusterContext)`,
    );
  });

  it("falls back to http://localhost:8080, which refuses to send credentials in the clear", async () => {
    const credentials = loadCredentials({}, bare());
    expect(credentials).toMatchObject({ via: "native", server: "http://localhost:8080" });
    await expect(credentials.apply({})).rejects.toThrow(
      /plain HTTP, allowed only with insecure-skip-tls-verify/,
    );
  });

  it("leaves Windows' lookup (WSL) to client-node", () => {
    expect(loadCredentials({}, bare({ platform: "win32" })).via).toBe("client-node");
  });
});

/**
 * Creates a client in a fresh Node process from the TypeScript sources and reports every resolution of
 * `@kubernetes/client-node` (a `registerHooks` resolve hook sees `require` and `import` alike).
 */
async function clientNodeResolvedIn(kubeconfigPath: string): Promise<{ resolved: string[]; reason: string }> {
  const client = new URL("./client.ts", import.meta.url).href;
  const packages = new URL("../../../", import.meta.url).href;
  const script = `
import { existsSync } from "node:fs";
import { registerHooks } from "node:module";
import { fileURLToPath } from "node:url";
const resolved = [];
registerHooks({
  resolve(specifier, context, next) {
    if (specifier.startsWith("@kubernetes/client-node")) resolved.push(specifier);
    const pkg = /^@kyverno-ts\\/([a-z-]+)$/.exec(specifier);
    if (pkg) return { url: new URL(pkg[1] + "/src/index.ts", ${JSON.stringify(packages)}).href, shortCircuit: true };
    const parent = context.parentURL;
    if (parent?.endsWith(".ts") && /^\\.\\.?\\//.test(specifier) && specifier.endsWith(".js")) {
      const url = new URL(specifier.slice(0, -3) + ".ts", parent);
      if (existsSync(fileURLToPath(url))) return { url: url.href, shortCircuit: true };
    }
    return next(specifier, context);
  },
});
const { createKubeClient } = await import(${JSON.stringify(client)});
const client = createKubeClient({ kubeconfigPath: process.env.TEST_KUBECONFIG, timeoutMs: 2000 });
const answer = await client.get({ apiVersion: "v1", kind: "Namespace", name: "default" });
client.close();
console.log(JSON.stringify({ resolved, reason: answer.ok ? "ok" : answer.reason }));
`;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["--experimental-transform-types", "--no-warnings", "--input-type=module", "-e", script],
    { env: { ...process.env, TEST_KUBECONFIG: kubeconfigPath }, cwd: fileURLToPath(packages) },
  );
  return JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as { resolved: string[]; reason: string };
}

describe("@kubernetes/client-node stays unloaded", () => {
  it("for a plain kubeconfig (token, CA data), through a request; an exec kubeconfig loads it", async () => {
    const ca = Buffer.from("-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n").toString("base64");
    const plain = write(
      "child/plain",
      JSON.stringify({
        clusters: [
          { name: "c", cluster: { server: "https://127.0.0.1:1", "certificate-authority-data": ca } },
        ],
        users: [{ name: "u", user: { token: "t" } }],
        contexts: [{ name: "ctx", context: { cluster: "c", user: "u" } }],
        "current-context": "ctx",
      }),
    );
    const withExec = write("child/exec", kubeconfig("e", "https://127.0.0.1:1", EXEC_USER));
    const [native, fallback] = await Promise.all([
      clientNodeResolvedIn(plain),
      clientNodeResolvedIn(withExec),
    ]);
    expect(native.reason).not.toBe("ok");
    expect(native.resolved).toEqual([]);
    expect(fallback.resolved).toContain("@kubernetes/client-node");
  }, 30_000);
});
