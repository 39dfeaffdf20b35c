import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { KubeConfig } from "@kubernetes/client-node";
import type { KubeObject } from "@kyverno-ts/api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKubeClient, type KubeClient } from "./client.js";
import type { WatchEvent } from "./types.js";

/** A scripted API server for what a real one rarely does: HTML errors, garbage in a watch, silence. */
const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
  "/api/v1": (_req, res) => {
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(
      JSON.stringify({
        kind: "APIResourceList",
        groupVersion: "v1",
        resources: [
          { name: "configmaps", kind: "ConfigMap", namespaced: true, verbs: ["get", "list", "watch"] },
          { name: "configmaps/status", kind: "ConfigMap", namespaced: true, verbs: ["get"] },
          { name: "secrets", kind: "Secret", namespaced: true, verbs: ["get", "list", "watch"] },
          { name: "namespaces", kind: "Namespace", namespaced: false, verbs: ["get", "list", "watch"] },
        ],
      }),
    );
  },
  "/api/v1/namespaces/default/configmaps/proxy-error": (_req, res) => {
    res.writeHead(503, { "Content-Type": "text/html" });
    res.end("<html>upstream unavailable</html>");
  },
  "/api/v1/namespaces/default/configmaps/not-json": (_req, res) => {
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end("{oops");
  },
  "/api/v1/configmaps": (_req, res) => {
    res.writeHead(200, { "Content-Type": "application/json" });
    res.write(
      `${JSON.stringify({ type: "ADDED", object: { metadata: { name: "a", resourceVersion: "5" } } })}\n`,
    );
    res.write("this is not json\n");
  },
  "/api/v1/secrets": (_req, res) => {
    res.writeHead(200, { "Content-Type": "application/json" });
    res.flushHeaders(); // then silence
  },
};

describe("transport edge cases (scripted server)", () => {
  let server: Server;
  let client: KubeClient;

  beforeAll(async () => {
    server = createServer((req, res) => {
      const route = routes[new URL(req.url ?? "/", "http://x").pathname];
      if (route !== undefined) route(req, res);
      else {
        res.writeHead(404);
        res.end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [
        {
          name: "c",
          server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
          skipTLSVerify: true,
        },
      ],
      users: [{ name: "u", token: "t" }],
      contexts: [{ name: "ctx", cluster: "c", user: "u" }],
      currentContext: "ctx",
    });
    client = createKubeClient({ kubeconfig: kc, timeoutMs: 300 });
  });
  afterAll(async () => {
    client?.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it("maps a non-Status error body to a reason from the HTTP status", async () => {
    const result = await client.get({
      apiVersion: "v1",
      kind: "ConfigMap",
      namespace: "default",
      name: "proxy-error",
    });
    expect(result).toEqual({
      ok: false,
      status: 503,
      reason: "ServiceUnavailable",
      message: "<html>upstream unavailable</html>",
    });
  });

  it("refuses a success response that is not JSON", async () => {
    const result = await client.get({
      apiVersion: "v1",
      kind: "ConfigMap",
      namespace: "default",
      name: "not-json",
    });
    expect(result).toMatchObject({ ok: false, status: 200, reason: "BadResponse" });
  });

  it("does not resolve subresources as kinds", async () => {
    const info = await client.resource("v1", "ConfigMap");
    expect(info).toMatchObject({ ok: true, value: { name: "configmaps", namespaced: true } });
  });

  it("ends a watch whose stream carries a line that is not JSON", async () => {
    const events: WatchEvent<KubeObject>[] = [];
    const opened = await client.watch<KubeObject>({ apiVersion: "v1", kind: "ConfigMap" }, (e) =>
      events.push(e),
    );
    if (!opened.ok) throw new Error(opened.message);
    const end = await opened.value.done;
    expect(events.map((e) => e.type)).toEqual(["ADDED"]);
    expect(end).toMatchObject({ reason: "failed", failure: { reason: "BadResponse" } });
  });

  it("gives up on a silent watch after twice its timeout", async () => {
    const opened = await client.watch(
      { apiVersion: "v1", kind: "Secret", timeoutSeconds: 0.1 },
      () => undefined,
    );
    if (!opened.ok) throw new Error(opened.message);
    const started = Date.now();
    const end = await opened.value.done;
    expect(end).toMatchObject({ reason: "failed", failure: { reason: "Timeout" } });
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
  });
});

describe("warningsOf", () => {
  it("reads every quoted text of repeated and joined Warning headers, unescaping quotes", async () => {
    const { warningsOf } = await import("./transport.js");
    expect(warningsOf(undefined)).toEqual([]);
    expect(warningsOf('299 - "policy require-probes.validate-probes: fail"')).toEqual([
      "policy require-probes.validate-probes: fail",
    ]);
    expect(warningsOf(['299 - "one, with a comma"', '299 - "two \\"quoted\\""'])).toEqual([
      "one, with a comma",
      'two "quoted"',
    ]);
    expect(warningsOf('299 - "a", 299 - "b"')).toEqual(["a", "b"]);
  });
});
