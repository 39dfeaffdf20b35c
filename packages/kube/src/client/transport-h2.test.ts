import type { IncomingMessage, ServerResponse } from "node:http";
import { createSecureServer, type Http2SecureServer, type ServerHttp2Session } from "node:http2";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { KubeConfig } from "@kubernetes/client-node";
import { createCertificateAuthority } from "@kyverno-ts/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientNodeCredentials } from "./credentials.js";
import { createTransport, type Transport } from "./transport.js";

/** What the scripted servers saw: each request's HTTP version and Authorization, and each connection. */
const seen = { versions: [] as string[], auth: [] as string[], connections: 0 };

/** A scripted API server: `/version`, a Warning, a 404 Status, silence, and a watch that stays open. */
function handle(req: IncomingMessage, res: ServerResponse): void {
  seen.versions.push(req.httpVersion);
  seen.auth.push(req.headers.authorization ?? "");
  const path = new URL(req.url ?? "/", "https://x").pathname;
  if (path === "/version") {
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(JSON.stringify({ gitVersion: "v1.33.0" }));
  } else if (path === "/warned") {
    res.writeHead(201, { "Content-Type": "application/json", Warning: '299 - "careful, \\"this\\""' });
    res.end(JSON.stringify({ kind: "ConfigMap", metadata: { name: "w" }, data: { a: "b" } }));
  } else if (path === "/missing") {
    res.writeHead(404, { "Content-Type": "application/json" });
    res.end(JSON.stringify({ kind: "Status", code: 404, reason: "NotFound", message: "gone" }));
  } else if (path === "/watch") {
    res.writeHead(200, { "Content-Type": "application/json" });
    res.write(`${JSON.stringify({ type: "ADDED", object: { metadata: { name: "a" } } })}\n`);
    const more = setInterval(
      () => res.write(`${JSON.stringify({ type: "MODIFIED", object: { metadata: { name: "a" } } })}\n`),
      20,
    );
    res.on("close", () => clearInterval(more));
  } else if (path !== "/silent") {
    res.writeHead(404);
    res.end();
  }
}

let ca = "";
/** The HTTP/2 server's open sessions. */
const sessions = new Set<ServerHttp2Session>();
let h2Server: Http2SecureServer;
let h1Server: Server;
const urlOf = (s: { address(): AddressInfo | string | null }) =>
  `https://127.0.0.1:${(s.address() as AddressInfo).port}`;

beforeAll(async () => {
  const authority = await createCertificateAuthority();
  const { certPem, keyPem } = await authority.issue(["127.0.0.1"]);
  ca = authority.caCertPem;
  h2Server = createSecureServer({ cert: certPem, key: keyPem, allowHTTP1: true }, (req, res) =>
    handle(req as unknown as IncomingMessage, res as unknown as ServerResponse),
  );
  h2Server.on("session", (s) => {
    sessions.add(s);
    s.on("close", () => sessions.delete(s));
  });
  h1Server = createServer({ cert: certPem, key: keyPem }, handle);
  for (const s of [h2Server, h1Server]) {
    s.on("connection", () => seen.connections++);
    await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  }
});
afterAll(async () => {
  h1Server.closeAllConnections();
  await Promise.all([h2Server, h1Server].map((s) => new Promise((resolve) => s.close(resolve))));
});

function transportTo(server: string, user: { token?: string; username?: string; password?: string } = {}) {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: "c", server, caData: Buffer.from(ca).toString("base64") }],
    users: [{ name: "u", token: "t", ...user }],
    contexts: [{ name: "ctx", cluster: "c", user: "u" }],
    currentContext: "ctx",
  });
  return createTransport(clientNodeCredentials(kc), "test");
}

const get = (path: string, more: { timeoutMs?: number; signal?: AbortSignal } = {}) => ({
  method: "GET" as const,
  path,
  timeoutMs: more.timeoutMs ?? 2000,
  ...(more.signal === undefined ? {} : { signal: more.signal }),
});

function reset(): void {
  seen.versions.length = 0;
  seen.auth.length = 0;
  seen.connections = 0;
}

describe("transport over HTTP/2", () => {
  let transport: Transport;
  beforeAll(() => {
    transport = transportTo(urlOf(h2Server));
  });
  afterAll(() => transport.close());

  it("speaks HTTP/2 to a server that offers it, every request on one connection", async () => {
    reset();
    const answers = await Promise.all(Array.from({ length: 20 }, () => transport.request(get("/version"))));
    expect(answers.every((a) => a.ok && (a.value as { gitVersion: string }).gitVersion === "v1.33.0")).toBe(
      true,
    );
    expect(new Set(seen.versions)).toEqual(new Set(["2.0"]));
    expect(seen.auth.every((a) => a === "Bearer t")).toBe(true);
    expect(seen.connections).toBeLessThanOrEqual(1);
  });

  it("reads admission warnings, Status failures and bodies as over HTTP/1.1", async () => {
    const warned = await transport.request({ ...get("/warned"), method: "POST", body: "{}" });
    expect(warned).toMatchObject({ ok: true, status: 201, warnings: ['careful, "this"'] });
    const header = await transport.request({
      ...get("/warned"),
      method: "POST",
      body: "{}",
      decode: "header",
    });
    expect(header).toMatchObject({ ok: true, value: { kind: "ConfigMap", metadata: { name: "w" } } });
    expect((header as { value: Record<string, unknown> }).value.data).toBeUndefined();
    expect(await transport.request(get("/missing"))).toEqual({
      ok: false,
      status: 404,
      reason: "NotFound",
      message: "gone",
    });
  });

  it("gives up on a silent server after the timeout, and at once when aborted", async () => {
    expect(await transport.request(get("/silent", { timeoutMs: 100 }))).toMatchObject({
      ok: false,
      reason: "Timeout",
    });
    const abort = new AbortController();
    const pending = transport.request(get("/silent", { signal: abort.signal }));
    setTimeout(() => abort.abort(), 20);
    expect(await pending).toMatchObject({ ok: false, reason: "Aborted" });
    // The connection is still good for the next request.
    expect((await transport.request(get("/version"))).ok).toBe(true);
  });

  it("streams a watch, which stop() ends and close() does not", async () => {
    const own = transportTo(urlOf(h2Server));
    const lines: string[] = [];
    let ended: unknown;
    const opened = await own.stream(get("/watch"), {
      line: (text) => void lines.push(text),
      end: (end) => {
        ended = end;
      },
    });
    if (!opened.ok) throw new Error(opened.message);
    own.close();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(ended).toBeUndefined();
    expect(lines.length).toBeGreaterThan(1);
    // After close() a request opens a new connection.
    reset();
    expect((await own.request(get("/version"))).ok).toBe(true);
    expect(seen.connections).toBe(1);
    opened.value();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(ended).toEqual({ reason: "stopped" });
    own.close();
  });

  it("sends basic-auth credentials as an Authorization header", async () => {
    const basic = transportTo(urlOf(h2Server), { token: undefined, username: "ada", password: "pw" });
    reset();
    expect((await basic.request(get("/version"))).ok).toBe(true);
    expect(seen.auth).toEqual([`Basic ${Buffer.from("ada:pw").toString("base64")}`]);
    basic.close();
  });

  it("opens a new connection when the server ended the last one", async () => {
    const own = transportTo(urlOf(h2Server));
    expect((await own.request(get("/version"))).ok).toBe(true);
    // Ends every open session from the server side (as an API server restart does).
    for (const s of sessions) s.destroy();
    await new Promise((resolve) => setTimeout(resolve, 50));
    reset();
    expect((await own.request(get("/version"))).ok).toBe(true);
    expect(seen.connections).toBe(1);
    own.close();
  });
});

describe("transport to a server without HTTP/2", () => {
  it("falls back to HTTP/1.1 with keep-alive connections", async () => {
    const transport = transportTo(urlOf(h1Server));
    reset();
    for (let i = 0; i < 5; i++) expect((await transport.request(get("/version"))).ok).toBe(true);
    expect(new Set(seen.versions)).toEqual(new Set(["1.1"]));
    // One connection to learn the protocol, one kept alive for the requests.
    expect(seen.connections).toBe(2);
    transport.close();
  });
});
