import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { KubeConfig } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { clientNodeCredentials } from "./credentials.js";
import { createTransport } from "./transport.js";

/** A server that answers 401 to the token "old" and 200 with the token it saw otherwise. */
let server: Server;
let url = "";

beforeAll(async () => {
  server = createServer((req, res) => {
    const auth = req.headers.authorization ?? "";
    res.writeHead(auth === "Bearer old" ? 401 : 200, { "Content-Type": "application/json" });
    res.end(JSON.stringify({ kind: "Status", auth }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** A kubeconfig whose token can be changed (as a rotated token file is), counting credential loads. */
function rotatingConfig(): { kc: KubeConfig; token: { value: string }; loads: () => number } {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: "c", server: url, skipTLSVerify: true }],
    users: [{ name: "u", token: "unused" }],
    contexts: [{ name: "ctx", cluster: "c", user: "u" }],
    currentContext: "ctx",
  });
  const token = { value: "first" };
  const spy = vi.spyOn(kc, "applyToHTTPSOptions").mockImplementation(async (opts) => {
    opts.headers = { ...opts.headers, Authorization: `Bearer ${token.value}` };
  });
  return { kc, token, loads: () => spy.mock.calls.length };
}

const get = { method: "GET" as const, path: "/version", timeoutMs: 2000 };
const authOf = (r: { ok: boolean; value?: unknown }) => (r.value as { auth?: string } | undefined)?.auth;

describe("transport credentials", () => {
  it("loads the credentials once per TTL, not per request, and picks up a rotated token after it", async () => {
    const { kc, token, loads } = rotatingConfig();
    let now = 0;
    const transport = createTransport(clientNodeCredentials(kc), "test", {
      credentialsTtlMs: 1000,
      now: () => now,
    });
    const first = await Promise.all(Array.from({ length: 20 }, () => transport.request(get)));
    expect(first.every((r) => authOf(r) === "Bearer first")).toBe(true);
    expect(loads()).toBe(1);
    token.value = "second";
    now = 999;
    expect(authOf(await transport.request(get))).toBe("Bearer first");
    now = 1000;
    expect(authOf(await transport.request(get))).toBe("Bearer second");
    expect(loads()).toBe(2);
    transport.close();
  });

  it("loads the credentials again at once after a 401", async () => {
    const { kc, token, loads } = rotatingConfig();
    token.value = "old";
    const transport = createTransport(clientNodeCredentials(kc), "test", {
      credentialsTtlMs: 60_000,
      now: () => 0,
    });
    expect((await transport.request(get)).status).toBe(401);
    token.value = "new";
    const retried = await transport.request(get);
    expect(retried.ok).toBe(true);
    expect(authOf(retried)).toBe("Bearer new");
    expect(loads()).toBe(2);
    transport.close();
  });

  it("does not keep a failed credential load", async () => {
    const { kc, loads } = rotatingConfig();
    let fail = true;
    vi.mocked(kc.applyToHTTPSOptions).mockImplementation(async (opts) => {
      if (fail) throw new Error("exec plugin failed");
      opts.headers = { ...opts.headers, Authorization: "Bearer ok" };
    });
    const transport = createTransport(clientNodeCredentials(kc), "test", {
      credentialsTtlMs: 60_000,
      now: () => 0,
    });
    const failed = await transport.request(get);
    expect(failed.ok).toBe(false);
    fail = false;
    await new Promise((resolve) => setImmediate(resolve));
    expect(authOf(await transport.request(get))).toBe("Bearer ok");
    expect(loads()).toBe(2);
    transport.close();
  });
});
