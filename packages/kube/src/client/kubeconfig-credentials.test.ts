import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type * as https from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Clock } from "@kyverno-ts/api";
import { afterAll, describe, expect, it } from "vitest";
import type { ResolvedContext } from "./kubeconfig.js";
import { inClusterContext, nativeCredentials, TOKEN_FILE_TTL_MS } from "./kubeconfig-credentials.js";

const dir = mkdtempSync(join(tmpdir(), "kube-credentials-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const write = (name: string, text: string): string => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

/** A clock the test moves. */
function manualClock(): Clock & { at: number } {
  const clock = { at: 0, now: () => clock.at, after: () => () => undefined };
  return clock;
}

const context = (
  cluster: Partial<ResolvedContext["cluster"]>,
  user?: ResolvedContext["user"],
): ResolvedContext => ({
  context: "ctx",
  where: "kubeconfig /k",
  cluster: { name: "c", server: "https://h:6443", skipTLSVerify: false, ...cluster },
  ...(user === undefined ? {} : { user }),
});

const applied = async (
  resolved: ResolvedContext,
  clock: Clock = manualClock(),
): Promise<https.RequestOptions> => {
  const options: https.RequestOptions = { headers: {} };
  await nativeCredentials(resolved, { clock }).apply(options);
  return options;
};

describe("nativeCredentials", () => {
  it("fills CA, client certificate and key from data, a bearer token, TLS server name and skip-verify", async () => {
    const options = await applied(
      context(
        { caData: Buffer.from("CA"), tlsServerName: "api.internal", skipTLSVerify: true },
        { name: "u", certData: Buffer.from("CERT"), keyData: Buffer.from("KEY"), token: "t" },
      ),
    );
    expect(options).toEqual({
      headers: { Authorization: "Bearer t" },
      ca: Buffer.from("CA"),
      cert: Buffer.from("CERT"),
      key: Buffer.from("KEY"),
      servername: "api.internal",
      rejectUnauthorized: false,
    });
  });

  it("reads CA, certificate and key files for each connection; a file wins over data, as in client-node", async () => {
    const ca = write("ca.crt", "CA1");
    const cert = write("u.crt", "CERT");
    const key = write("u.key", "KEY");
    const resolved = context(
      { caFile: ca, caData: Buffer.from("ignored") },
      { name: "u", certFile: cert, keyFile: key },
    );
    const credentials = nativeCredentials(resolved, { clock: manualClock() });
    const first: https.RequestOptions = {};
    await credentials.apply(first);
    expect(first).toMatchObject({
      ca: Buffer.from("CA1"),
      cert: Buffer.from("CERT"),
      key: Buffer.from("KEY"),
    });
    expect(first.rejectUnauthorized).toBeUndefined();
    write("ca.crt", "CA2");
    const second: https.RequestOptions = {};
    await credentials.apply(second);
    expect(second.ca).toEqual(Buffer.from("CA2"));
  });

  it("names the kubeconfig, the field and the file it cannot read", async () => {
    const missing = join(dir, "nope.key");
    const credentials = nativeCredentials(context({}, { name: "u", keyFile: missing }), {
      clock: manualClock(),
    });
    await expect(credentials.apply({})).rejects.toThrow(
      `kubeconfig /k: user "u": client-key: cannot read ${missing} (ENOENT)`,
    );
  });

  it("sends basic auth as client-node does (`auth`), and a token besides", async () => {
    const options = await applied(context({}, { name: "u", username: "admin", password: "pw", token: "t" }));
    expect(options.auth).toBe("admin:pw");
    expect(options.headers).toEqual({ Authorization: "Bearer t" });
  });

  it("re-reads a token file once 60 s passed (trimmed), keeping the last token while the file is missing", async () => {
    const token = write("token", "one\n");
    const clock = manualClock();
    const credentials = nativeCredentials(
      context({}, { name: "u", tokenFile: { path: token, field: "tokenFile" } }),
      { clock },
    );
    const bearer = async () => {
      const options: https.RequestOptions = {};
      await credentials.apply(options);
      return (options.headers as Record<string, string> | undefined)?.Authorization;
    };
    expect(await bearer()).toBe("Bearer one");
    write("token", "two");
    clock.at = TOKEN_FILE_TTL_MS;
    expect(await bearer()).toBe("Bearer one");
    clock.at = TOKEN_FILE_TTL_MS + 1;
    expect(await bearer()).toBe("Bearer two");
    rmSync(token);
    clock.at = 3 * TOKEN_FILE_TTL_MS;
    expect(await bearer()).toBe("Bearer two");
    write("token", "three");
    expect(await bearer()).toBe("Bearer three");
  });

  it("a token wins over a token file; an empty token file sends no Authorization", async () => {
    const token = write("token-a", "from-file");
    const both = await applied(
      context({}, { name: "u", token: "inline", tokenFile: { path: token, field: "tokenFile" } }),
    );
    expect(both.headers).toEqual({ Authorization: "Bearer inline" });
    const empty = await applied(
      context({}, { name: "u", tokenFile: { path: write("empty", ""), field: "tokenFile" } }),
    );
    expect(empty.headers).toEqual({});
  });

  it("reads a kubeconfig's token file at once when asked (a missing one fails the load)", () => {
    const missing = { name: "u", tokenFile: { path: join(dir, "gone"), field: "token-file" } };
    expect(() =>
      nativeCredentials(context({}, missing), { clock: manualClock(), readTokenFileNow: true }),
    ).toThrow(`kubeconfig /k: user "u": token-file: cannot read ${join(dir, "gone")} (ENOENT)`);
    expect(() => nativeCredentials(context({}, missing), { clock: manualClock() })).not.toThrow();
  });

  it("refuses plain HTTP unless insecure-skip-tls-verify is set, as client-node does", async () => {
    await expect(applied(context({ server: "http://h:8080" }, { name: "u", token: "t" }))).rejects.toThrow(
      'kubeconfig /k: cluster "c": server http://h:8080 is plain HTTP, allowed only with insecure-skip-tls-verify: true',
    );
    const allowed = await applied(
      context({ server: "http://h:8080", skipTLSVerify: true }, { name: "u", token: "t" }),
    );
    expect(allowed.headers).toEqual({ Authorization: "Bearer t" });
  });

  it("applies the cluster's TLS settings to an anonymous context", async () => {
    expect(await applied(context({ caData: Buffer.from("CA") }))).toEqual({
      headers: {},
      ca: Buffer.from("CA"),
    });
  });
});

describe("inClusterContext", () => {
  const sa = mkdtempSync(join(dir, "sa-"));
  writeFileSync(join(sa, "token"), "sa-token-1");
  writeFileSync(join(sa, "ca.crt"), "SA-CA");

  it("uses KUBERNETES_SERVICE_HOST/PORT, the mounted CA and the mounted token, re-read as it rotates", async () => {
    const env = { KUBERNETES_SERVICE_HOST: "10.96.0.1", KUBERNETES_SERVICE_PORT: "443" };
    const resolved = inClusterContext({ env, serviceAccountDir: sa });
    expect(resolved.cluster.server).toBe("https://10.96.0.1:443");
    const clock = manualClock();
    const credentials = nativeCredentials(resolved, { clock });
    const first: https.RequestOptions = {};
    await credentials.apply(first);
    expect(first).toEqual({ ca: Buffer.from("SA-CA"), headers: { Authorization: "Bearer sa-token-1" } });
    writeFileSync(join(sa, "token"), "sa-token-2");
    clock.at = TOKEN_FILE_TTL_MS + 1;
    const second: https.RequestOptions = {};
    await credentials.apply(second);
    expect(second.headers).toEqual({ Authorization: "Bearer sa-token-2" });
  });

  it("brackets an IPv6 host and speaks HTTP on ports 80, 8080 and 8001", () => {
    const server = (host: string, port: string) =>
      inClusterContext({
        env: { KUBERNETES_SERVICE_HOST: host, KUBERNETES_SERVICE_PORT: port },
        serviceAccountDir: sa,
      }).cluster.server;
    expect(server("fd00::1", "443")).toBe("https://[fd00::1]:443");
    expect(server("10.0.0.1", "8080")).toBe("http://10.0.0.1:8080");
    expect(server("10.0.0.1", "8001")).toBe("http://10.0.0.1:8001");
    expect(server("kubernetes", "80")).toBe("http://kubernetes:80");
  });

  it("says what is missing outside a Pod", () => {
    expect(() => inClusterContext({ env: {}, serviceAccountDir: sa })).toThrow(
      /KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set/,
    );
  });

  it("fails a request, naming the file, when the service account is not mounted", async () => {
    const empty = mkdtempSync(join(dir, "sa-empty-"));
    const env = { KUBERNETES_SERVICE_HOST: "10.96.0.1", KUBERNETES_SERVICE_PORT: "443" };
    const credentials = nativeCredentials(inClusterContext({ env, serviceAccountDir: empty }), {
      clock: manualClock(),
    });
    await expect(credentials.apply({})).rejects.toThrow(
      `certificate-authority: cannot read ${join(empty, "ca.crt")}`,
    );
  });
});
