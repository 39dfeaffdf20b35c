import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  type Kubeconfig,
  mergeKubeconfigs,
  parseKubeconfig,
  type Resolution,
  type ResolvedContext,
  readKubeconfigFile,
  resolveContext,
} from "./kubeconfig.js";

const dir = mkdtempSync(join(tmpdir(), "kube-kubeconfig-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const b64 = (text: string) => Buffer.from(text).toString("base64");
const source = { label: "kubeconfig (string)" };

/** A kubeconfig with one context `ctx` of cluster `c` and user `u`. */
const yamlOf = (cluster: Record<string, unknown>, user: Record<string, unknown> | undefined, more = "") =>
  JSON.stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "c", cluster: { server: "https://k8s.example:6443/", ...cluster } }],
    users: user === undefined ? [] : [{ name: "u", user }],
    contexts: [{ name: "ctx", context: { cluster: "c", ...(user === undefined ? {} : { user: "u" }) } }],
    "current-context": "ctx",
  }) + more;

const native = (resolution: Resolution): ResolvedContext => {
  if ("fallback" in resolution) throw new Error(`fell back: ${resolution.fallback}`);
  return resolution.native;
};
const write = (name: string, text: string): string => {
  const path = join(dir, name);
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, text);
  return path;
};

describe("parseKubeconfig / resolveContext", () => {
  it("reads every handled cluster field; the server loses its trailing slash", () => {
    const resolved = native(
      resolveContext(
        parseKubeconfig(
          yamlOf(
            {
              "certificate-authority-data": b64("CA"),
              "insecure-skip-tls-verify": true,
              "tls-server-name": "api.internal",
              extensions: [{ name: "cluster_info", extension: { provider: "minikube.sigs.k8s.io" } }],
            },
            { token: "t" },
          ),
          source,
        ),
      ),
    );
    expect(resolved.cluster).toEqual({
      name: "c",
      server: "https://k8s.example:6443",
      caData: Buffer.from("CA"),
      skipTLSVerify: true,
      tlsServerName: "api.internal",
    });
    expect(resolved.context).toBe("ctx");
  });

  it("reads every handled user field; YAML as well as JSON", () => {
    const text = `
clusters:
- name: c
  cluster: {server: "https://h:1", insecure-skip-tls-verify: "true"}
users:
- name: u
  user:
    client-certificate-data: ${b64("CERT")}
    client-key-data: ${b64("KEY")}
    token: 12345
    username: admin
    password: secret
contexts:
- name: ctx
  context: {cluster: c, user: u, namespace: default}
current-context: ctx
`;
    const resolved = native(resolveContext(parseKubeconfig(text, source)));
    // client-node compares with `=== true`: a quoted "true" does not skip verification.
    expect(resolved.cluster.skipTLSVerify).toBe(false);
    expect(resolved.user).toEqual({
      name: "u",
      certData: Buffer.from("CERT"),
      keyData: Buffer.from("KEY"),
      token: "12345",
      username: "admin",
      password: "secret",
    });
  });

  it("resolves relative file paths against the kubeconfig's folder (tokenFile too), not a string's", () => {
    const path = write(
      "rel/config",
      yamlOf(
        { "certificate-authority": "pki/ca.crt" },
        { "client-certificate": "pki/u.crt", "client-key": "/abs/u.key", tokenFile: "tok" },
      ),
    );
    const fromFile = native(resolveContext(readKubeconfigFile(path)));
    expect(fromFile.cluster.caFile).toBe(join(dir, "rel/pki/ca.crt"));
    expect(fromFile.user).toMatchObject({
      certFile: join(dir, "rel/pki/u.crt"),
      keyFile: "/abs/u.key",
      tokenFile: { path: join(dir, "rel/tok"), field: "tokenFile" },
    });
    const fromString = native(
      resolveContext(
        parseKubeconfig(yamlOf({ "certificate-authority": "pki/ca.crt" }, { "token-file": "t" }), source),
      ),
    );
    expect(fromString.cluster.caFile).toBe("pki/ca.crt");
    expect(fromString.user?.tokenFile).toEqual({ path: "t", field: "token-file" });
    // client-node's `token-file` stays relative to the working directory, as client-node reads it.
    const nodeStyle = native(
      resolveContext(readKubeconfigFile(write("rel/node", yamlOf({}, { "token-file": "t" })))),
    );
    expect(nodeStyle.user?.tokenFile).toEqual({ path: "t", field: "token-file" });
  });

  it("chooses the context asked for, else current-context; a context without a user is anonymous", () => {
    const text = `
clusters: [{name: a, cluster: {server: "https://a"}}, {name: b, cluster: {server: "https://b"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: one, context: {cluster: a, user: u}}, {name: two, context: {cluster: b}}]
current-context: one
`;
    const config = parseKubeconfig(text, source);
    expect(native(resolveContext(config)).cluster.server).toBe("https://a");
    const two = native(resolveContext(config, "two"));
    expect(two.cluster.server).toBe("https://b");
    expect(two.user).toBeUndefined();
  });

  it.each([
    ["exec", { exec: { apiVersion: "client.authentication.k8s.io/v1", command: "aws" } }, {}],
    ["auth-provider", { "auth-provider": { name: "oidc", config: {} } }, {}],
    ["as", { token: "t", as: "someone" }, {}],
    ["a field it does not know", { token: "t", "new-field": 1 }, {}],
    ["proxy-url", { token: "t" }, { "proxy-url": "http://proxy:3128" }],
  ])("leaves a %s to client-node", (_what, user, cluster) => {
    const resolution = resolveContext(parseKubeconfig(yamlOf(cluster, user), source));
    expect(resolution).toEqual({ fallback: expect.stringMatching(/^(user "u"|cluster "c") sets /) });
  });

  it("ignores fields set to null, and other users' fields", () => {
    const text = yamlOf({ "proxy-url": null }, { token: "t", exec: null });
    expect(native(resolveContext(parseKubeconfig(text, source))).user?.token).toBe("t");
    const other = `
clusters: [{name: c, cluster: {server: "https://c"}}]
users: [{name: u, user: {token: t}}, {name: x, user: {exec: {command: aws}}}]
contexts: [{name: ctx, context: {cluster: c, user: u}}]
current-context: ctx
`;
    expect(native(resolveContext(parseKubeconfig(other, source))).user?.token).toBe("t");
  });
});

describe("kubeconfig errors name the kubeconfig and the field", () => {
  const cases: [string, string, string | undefined, RegExp][] = [
    [
      "no current context",
      "clusters: []\ncontexts: []\n",
      undefined,
      /kubeconfig \(string\): no current-context/,
    ],
    [
      "a missing context",
      yamlOf({}, { token: "t" }),
      "prod",
      /kubeconfig \(string\): context "prod" is not defined \(contexts: ctx\)/,
    ],
    [
      "a missing cluster",
      "clusters: []\ncontexts: [{name: x, context: {cluster: gone}}]\ncurrent-context: x\n",
      undefined,
      /context "x" names cluster "gone", which is not defined/,
    ],
    [
      "a missing user",
      "clusters: [{name: c, cluster: {server: s}}]\ncontexts: [{name: x, context: {cluster: c, user: nobody}}]\ncurrent-context: x\n",
      undefined,
      /context "x" names user "nobody", which is not defined/,
    ],
    [
      "bad base64",
      yamlOf({ "certificate-authority-data": "not base64!" }, { token: "t" }),
      undefined,
      /kubeconfig \(string\): cluster "c": certificate-authority-data is not valid base64/,
    ],
    [
      "bad base64 of a user",
      yamlOf({}, { "client-key-data": "@@@" }),
      undefined,
      /user "u": client-key-data is not valid base64/,
    ],
    [
      "a cluster without a server",
      "clusters: [{name: c, cluster: {}}]\n",
      undefined,
      /clusters\[0\]\.cluster\.server is missing/,
    ],
    [
      "a context without a name",
      "contexts: [{context: {cluster: c}}]\n",
      undefined,
      /contexts\[0\]\.name is missing/,
    ],
    ["not YAML", "clusters: [", undefined, /kubeconfig \(string\): not valid YAML/],
    ["not a mapping", "- a\n- b\n", undefined, /kubeconfig \(string\): not a kubeconfig/],
  ];
  it.each(cases)("%s", (_what, text, context, message) => {
    expect(() => resolveContext(parseKubeconfig(text, source), context)).toThrow(message);
  });

  it("passes on Node's error for an unreadable file (it names the path)", () => {
    const missing = join(dir, "missing");
    expect(() => readKubeconfigFile(missing)).toThrow(`ENOENT: no such file or directory, open '${missing}'`);
  });

  it("accepts base64 split over lines", () => {
    const resolved = native(
      resolveContext(parseKubeconfig(yamlOf({ "certificate-authority-data": "Q0\nE=" }, {}), source)),
    );
    expect(resolved.cluster.caData).toEqual(Buffer.from("CA"));
  });
});

describe("mergeKubeconfigs (KUBECONFIG with several files, as client-node merges them)", () => {
  const file = (name: string, text: string): Kubeconfig => readKubeconfigFile(write(`merge/${name}`, text));

  it("keeps every file's entries with paths relative to its own folder; the last current-context wins", () => {
    const a = file(
      "a/config",
      "clusters: [{name: c1, cluster: {server: https://one, certificate-authority: ca}}]\ncurrent-context: first\n",
    );
    const b = file(
      "b/config",
      "users: [{name: u, user: {token: t}}]\ncontexts: [{name: first, context: {cluster: c1, user: u}}, {name: second, context: {cluster: c1}}]\ncurrent-context: second\n",
    );
    const c = file("c/config", "clusters: []\n");
    const merged = mergeKubeconfigs([a, b, c], "KUBECONFIG a:b:c");
    expect(merged.currentContext).toBe("second");
    const resolved = native(resolveContext(merged));
    expect(resolved.context).toBe("second");
    expect(resolved.cluster.caFile).toBe(join(dir, "merge/a/ca"));
    expect(native(resolveContext(merged, "first")).user?.token).toBe("t");
  });

  it("rejects a name defined in two files, naming both", () => {
    const a = file("dup/a", "clusters: [{name: c, cluster: {server: https://a}}]\n");
    const b = file("dup/b", "clusters: [{name: c, cluster: {server: https://b}}]\n");
    expect(() => mergeKubeconfigs([a, b], "KUBECONFIG")).toThrow(
      `KUBECONFIG: cluster "c" is defined in kubeconfig ${join(dir, "merge/dup/a")} and again in kubeconfig ${join(dir, "merge/dup/b")}`,
    );
  });
});
